package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// A command run with --stats-to STORE publishes its stats to the crawl's
// store (the frontier's SQLite file or Redis) every --stats-every (5s by
// default), on a goroutine of its own, and a last time when it finishes:
// cqueue serve shows them (see package toolstats). A store that cannot be
// opened or written is said once on stderr and never fails the command;
// a write waits at most the store's default busy timeout (5s), so a slow
// store delays only the next snapshot, never a record; at the end a write
// under way is given up, and the last one waits at most 2s.

// publisher is the goroutine publishing the stats.
type publisher struct {
	every      time.Duration
	stop, done chan struct{}
	once       sync.Once
	ctx        context.Context // of the periodic writes: cancelled at the end
	cancel     context.CancelFunc
	store      toolstats.Store // opened by the goroutine; nil until then
	host       string
	told       bool // a failure was said (by the goroutine, until done)
}

// finalPutTimeout bounds the last write, at the command's end.
const finalPutTimeout = 2 * time.Second

// publishEvery is the publishing period: --stats-every (at least
// minPublishEvery), else toolstats.DefaultEvery.
func (t *Tool) publishEvery() time.Duration {
	if t.StatsEvery > 0 {
		return max(t.StatsEvery, minPublishEvery)
	}
	return toolstats.DefaultEvery
}

// minPublishEvery bounds the writes to the store, whatever --stats-every
// asks of the stats file.
const minPublishEvery = 100 * time.Millisecond

// statsToName is StatsTo for messages: a Redis URL without its password.
func (t *Tool) statsToName() string {
	if dedupe.IsRedisURL(t.StatsTo) {
		return dedupe.RedactRedisURL(t.StatsTo)
	}
	return t.StatsTo
}

// toolName is the command as the snapshots name it: "cfetch", "cqueue pop".
func (t *Tool) toolName() string {
	if t.Sub != "" {
		return t.Name + " " + t.Sub
	}
	return t.Name
}

// snapshot is the stats as a snapshot, taken at now.
func (t *Tool) snapshot(p *publisher, now time.Time) (toolstats.Snapshot, error) {
	b, err := json.Marshal(t.statsJSON())
	if err != nil {
		return toolstats.Snapshot{}, err
	}
	return toolstats.Snapshot{CrawlID: t.StatsCrawlID, Tool: t.toolName(), Host: p.host, PID: os.Getpid(),
		At: now.UTC(), EveryMS: p.every.Milliseconds(), Stats: b}, nil
}

// startPublisher starts publishing to StatsTo, once.
func (t *Tool) startPublisher() {
	if t.StatsTo == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pub != nil {
		return
	}
	host, _ := os.Hostname()
	p := &publisher{every: t.publishEvery(), stop: make(chan struct{}), done: make(chan struct{}), host: host}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	t.pub = p
	go func() {
		defer close(p.done)
		tick := time.NewTicker(p.every)
		defer tick.Stop()
		for {
			// The first at once: the tool shows from its start.
			if err := t.publish(p, false, 0); err != nil && !p.told && p.ctx.Err() == nil {
				p.told = true
				t.Printf("warning: --stats-to %s: %v (said once: the command goes on, and publishes again every %s)", t.statsToName(), err, p.every)
			}
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
}

// publish writes one snapshot (the last, with the exit status, when
// exited), opening the store the first time.
func (t *Tool) publish(p *publisher, exited bool, code int) error {
	timeout, parent := dedupe.DefaultBusyTimeout, p.ctx
	if exited {
		timeout, parent = finalPutTimeout, context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	if p.store == nil {
		s, err := toolstats.Open(ctx, t.StatsTo, toolstats.Options{BusyTimeout: timeout, Getenv: t.getenv})
		if err != nil {
			return err
		}
		p.store = s
	}
	now := t.Stats.now()
	snap, err := t.snapshot(p, now)
	if err != nil {
		return err
	}
	if exited {
		snap.Exited, snap.Exit = true, &code
	}
	return p.store.Put(ctx, now, snap)
}

// finishPublisher stops the periodic writes and publishes the last
// snapshot, with the exit status.
func (t *Tool) finishPublisher(code int) {
	t.mu.Lock()
	p := t.pub
	t.mu.Unlock()
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.stop); p.cancel() }) // a write under way gives up
	<-p.done
	if err := t.publish(p, true, code); err != nil && !p.told {
		t.Printf("warning: --stats-to %s: %v", t.statsToName(), fmt.Errorf("the last stats: %w", err))
	}
	if p.store != nil {
		p.store.Close()
	}
}
