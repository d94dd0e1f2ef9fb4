package cdedupe

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// run is the cdedupe command, its flags parsed into o.
func (o *Options) run(ctx context.Context, env *cli.Env) error {
	tool := env.Tool
	o.getenv = env.Getenv
	if err := o.Validate(); err != nil {
		return cli.Usagef("%v", err)
	}
	k, err := newKeyer(o)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	dsn, _ := o.dsn()
	store, err := dedupe.Open(context.WithoutCancel(ctx), dsn, dedupe.Options{TTL: o.TTL, BusyTimeout: o.BusyTimeout, Getenv: o.getenv})
	if err != nil {
		tool.Fail(err)
		return tool.Done(ctx)
	}
	defer store.Close()
	if o.ImportSeen != "" {
		if err := importSeen(ctx, store, o.ImportSeen, o.Namespace, env.Now()); err != nil {
			tool.Fail(err)
			return tool.Done(ctx)
		}
	}
	out, err := env.Output()
	if err != nil {
		tool.Fail(err)
		return tool.Done(ctx)
	}
	w := ndjson.NewWriter(out)
	files := env.Args
	tool.DrainOnInterrupt = env.DrainsOnInterrupt(files)
	b := &batcher{ctx: ctx, tool: tool, store: store, keys: k, w: w, max: o.Batch, now: env.Now}
	for line, rec := range tool.Records(ctx, ndjson.NewReader(files, env.Stdin), b.settle) {
		b.add(line, rec)
	}
	b.settle()
	if err := env.CloseOutput(); err != nil {
		tool.Fail(err)
	}
	if o.ExportSeen != "" {
		if err := exportSeen(ctx, store, o.ExportSeen, o.Namespace, env.Now()); err != nil {
			tool.Fail(err)
		}
	}
	return tool.Done(ctx)
}

// pending is a record waiting for its batch to be checked.
type pending struct {
	line ndjson.Line
	raw  []byte
	ns   string
	key  dedupe.Key
	keep bool // pass without a check
}

// batcher checks records against the store in batches, keeping their order.
type batcher struct {
	ctx    context.Context // the run's
	tool   *cli.Tool
	store  dedupe.Store
	keys   *keyer
	w      *ndjson.Writer
	max    int
	now    func() time.Time
	queue  []pending
	failed bool
}

func (b *batcher) add(line ndjson.Line, env record.Envelope) {
	ns, key, check, err := b.keys.key(env)
	if err != nil {
		b.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
		return
	}
	b.queue = append(b.queue, pending{line: line, raw: env.Raw, ns: ns, key: key, keep: !check})
	if len(b.queue) >= b.max {
		b.settle()
	}
}

// settle checks the queued records (one SeenBatch per namespace), writes
// the first-seen ones and the unchecked ones in input order, and flushes.
func (b *batcher) settle() {
	if len(b.queue) > 0 && !b.failed {
		byNS := map[string][]int{}
		for i, p := range b.queue {
			if !p.keep {
				byNS[p.ns] = append(byNS[p.ns], i)
			}
		}
		first := make([]bool, len(b.queue))
		now := b.now()
		for ns, idx := range byNS {
			keys := make([]dedupe.Key, len(idx))
			for j, i := range idx {
				keys[j] = b.queue[i].key
			}
			seen, err := b.store.SeenBatch(context.Background(), ns, keys, now)
			if err != nil {
				b.tool.Fail(fmt.Errorf("%v (records from %s on are not passed)", err, b.queue[idx[0]].line.Pos()))
				b.failed = true
				break
			}
			for j, i := range idx {
				first[i] = seen[j]
			}
		}
		if !b.failed {
			for i, p := range b.queue {
				if p.keep || first[i] {
					if b.w.WriteLine(p.raw) == nil {
						b.tool.Stats.Out.Add(1)
					}
				} else {
					b.tool.Stats.Drop("duplicate")
				}
			}
		}
	}
	b.queue = b.queue[:0]
	if err := b.w.Flush(); err != nil && !b.failed {
		// Its reader gone after an interrupt is what the interrupt asked
		// for, no failure (cli.ReaderGoneOnInterrupt).
		if !cli.ReaderGoneOnInterrupt(b.ctx, err) {
			b.tool.Fail(fmt.Errorf("write: %v", err))
		}
		b.failed = true
	}
}

// importSeen marks the fingerprints of a Scrapy requests.seen file as
// seen in ns. A Redis store split into shards refuses: a request's
// fingerprint lives in the shard of its host (where the frontier looks
// for it), and the file does not say the hosts.
func importSeen(ctx context.Context, store dedupe.Store, path, ns string, now time.Time) error {
	if r, ok := store.(*dedupe.Redis); ok && r.Shards() > 1 {
		return fmt.Errorf("--import-seen: the seen-set is split into %d shards (the Redis URL's shards=%d), where a request's fingerprint lives in the shard of its host, and a requests.seen file does not name the hosts: import it under a prefix= that is not split", r.Shards(), r.Shards())
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--import-seen: %v", err)
	}
	defer f.Close()
	var keys []dedupe.Key
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		_, err := store.SeenBatch(ctx, ns, keys, now)
		keys = keys[:0]
		return err
	}
	err = dedupe.ReadSeenFile(f, func(fp [20]byte) error {
		keys = append(keys, dedupe.ScrapyKey(fp))
		if len(keys) == 10000 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return fmt.Errorf("--import-seen %s: %v", path, err)
	}
	return nil
}

func exportSeen(ctx context.Context, store dedupe.Store, path, ns string, now time.Time) error {
	var fps [][20]byte
	err := store.Export(ctx, ns, now, func(k dedupe.Key) error {
		if k.Scrapy {
			fps = append(fps, k.SHA1)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("--export-seen: %v", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--export-seen: %v", err)
	}
	_, err = dedupe.WriteSeenFile(f, func(yield func([20]byte) bool) {
		for _, fp := range fps {
			if !yield(fp) {
				return
			}
		}
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--export-seen %s: %v", path, err)
	}
	return nil
}
