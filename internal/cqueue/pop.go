package cqueue

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// popOptions are pop's flags.
type popOptions struct {
	max    int
	follow bool
	lease  time.Duration
	window int
	batch  int
	poll   time.Duration
}

func runPop(ctx context.Context, tool *cli.Tool, args []string, _ io.Reader, stdout io.Writer) int {
	var s store
	o := popOptions{lease: 5 * time.Minute, window: 64, batch: 32, poll: 50 * time.Millisecond}
	f := tool.NewFlags(cli.Help{
		Usage:   "cqueue pop [flags]",
		Summary: "hand out queued requests, each leased until its ack comes back",
		Description: `Writes queued requests to stdout as request records, highest priority first,
FIFO within a priority, taking turns across hosts. Each carries a "lease": the
request is in flight until an ack record with that lease reaches 'cqueue push'.
A lease that expires (the worker died) returns the request to the queue with
retries+1; after three expiries it is dead-lettered (see 'cqueue dump').

Without --follow, pop writes what is queued (at most --max) and exits. With
--follow it keeps feeding while anything is queued or in flight, never more than
--window requests in flight at once, and exits 0 when the crawl is over: nothing
queued, nothing in flight. On SIGINT it stops handing out and exits 130; the rest
of the pipeline finishes and acks what it already has.`,
		Examples: `  cqueue pop --db crawl.db --follow | cfetch | cextract -r shop.yml | cexport -o items.csv | cqueue push --db crawl.db
  cqueue pop --db crawl.db --max 1000 > batch.jsonl      # a cron batch
  cqueue pop --db crawl.db --follow --window 256 --lease 10m`,
	})
	s.addFlags(f)
	f.IntVarP(&o.max, "max", "n", 0, "hand out at most `N` requests, then exit (0: no limit)")
	f.BoolVarP(&o.follow, "follow", "f", false, "keep feeding until nothing is queued or in flight, then exit 0")
	f.DurationVar(&o.lease, "lease", o.lease, "how long a handed-out request may stay unacked before it is handed out again")
	f.IntVar(&o.window, "window", o.window, "with --follow, hand out no more while `N` requests are in flight in the frontier (bounds refetches after a crash)")
	f.IntVar(&o.batch, "batch", o.batch, "pop at most `N` requests per transaction")
	f.DurationVar(&o.poll, "poll", o.poll, "with --follow, the longest wait between looks at the frontier when nothing can be handed out")
	if _, code, done := parse(tool, f, args, stdout, false); done {
		return code
	}
	switch {
	case o.max < 0:
		return tool.Usage("--max %d: must not be negative", o.max)
	case o.lease <= 0:
		return tool.Usage("--lease %s: must be positive", o.lease)
	case o.window < 1:
		return tool.Usage("--window %d: must be at least 1", o.window)
	case o.batch < 1:
		return tool.Usage("--batch %d: must be at least 1", o.batch)
	case o.poll <= 0:
		return tool.Usage("--poll %s: must be positive", o.poll)
	}
	fr, code := s.open(ctx, tool)
	if fr == nil {
		return code
	}
	defer fr.Close()
	tool.StartProgress(time.Second, nil)
	if err := pop(ctx, fr, o, ndjson.NewWriter(stdout), tool.Stats, time.Now); err != nil {
		tool.Fail(err)
	}
	return tool.Finish(ctx)
}

// pop hands out requests until max, the end of the queue (without
// follow), the end of the crawl (with follow) or ctx is done.
func pop(ctx context.Context, fr frontier.Frontier, o popOptions, w *ndjson.Writer, st *cli.Stats, now func() time.Time) error {
	bg := context.WithoutCancel(ctx) // a transaction is never cut in half
	handed := 0
	wait := time.Millisecond
	for ctx.Err() == nil {
		n := o.batch
		if o.max > 0 {
			n = min(n, o.max-handed)
			if n == 0 {
				return nil
			}
		}
		if o.follow {
			c, err := fr.Counts(bg)
			if err != nil {
				return err
			}
			n = min(n, o.window-int(c.InFlight))
		}
		if n > 0 {
			leased, err := fr.Pop(bg, n, o.lease, now())
			if err != nil {
				return err
			}
			for _, l := range leased {
				if err := w.WriteLine(l.Raw); err != nil {
					return fmt.Errorf("write stdout: %w", err)
				}
			}
			if err := w.Flush(); err != nil {
				return fmt.Errorf("write stdout: %w", err)
			}
			handed += len(leased)
			st.Out.Add(int64(len(leased)))
			if len(leased) > 0 {
				wait = time.Millisecond
				continue
			}
			if !o.follow {
				return nil
			}
		}
		done, err := fr.Done(bg)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(wait*2, o.poll)
	}
	return nil
}
