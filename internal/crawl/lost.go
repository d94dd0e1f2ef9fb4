package crawl

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// A frontier that loses the crawl's state while it runs — a Redis that
// restarted without persistence, or whose data was flushed — would let the
// loop end "complete": pop finds nothing queued and nothing in flight, and
// every tool exits 0, with the requests that were queued gone. The crawl's
// metadata (its round, set before the loop starts) is the witness: the
// run checks it at every renewal of its lock and once more at the end,
// and a crawl whose metadata has vanished is stopped and ends failed
// (exit 1), saying what was lost and how to start over.

// stateWatch watches the crawl's metadata while the loop runs.
type stateWatch struct {
	armed atomic.Bool // the metadata is set: its absence means a loss
	lost  atomic.Bool
	once  sync.Once
	stop  func(error) // stops the loop (its context's cancel)
}

// errStateLost stops the loop when the frontier lost the crawl's state.
var errStateLost = fmt.Errorf("the frontier lost this crawl's state")

// checkState reads the crawl's metadata; when the watch is armed and the
// round is gone, the loss is reported once and the loop stopped. A
// frontier that cannot be read says nothing here (the tools report it).
func (c *crawl) checkState(ctx context.Context) {
	if !c.state.armed.Load() || c.state.lost.Load() {
		return
	}
	meta, err := c.fr.CrawlMeta(ctx, c.o.crawlID)
	if err != nil || meta[metaRound] != "" {
		return
	}
	c.state.lost.Store(true)
	c.state.once.Do(func() {
		c.tool.Printf("crawl %q: the frontier lost this crawl's state (its round is gone); stopping the loop", c.o.crawlID)
		if c.state.stop != nil {
			c.state.stop(errStateLost)
		}
	})
}

// lostMessage says what was lost and how to start over.
func (c *crawl) lostMessage() string {
	return fmt.Sprintf("crawl %q: the frontier (%s) lost this crawl's state while it ran: its round, run lock, duplicate filter and the requests it held are gone (a Redis restarted without persistence, or its data flushed; see docs/distributed.md, When Redis dies), so the crawl cannot be complete; the loop is stopped. What was exported stays in %s. To start over: drop what is left of the crawl (cqueue stop --purge %s --crawlid %s), remove %s, and run the same command with another crawl name (--crawlid %s)",
		c.o.crawlID, storeurl.Redact(c.o.dsn), outName(c.o.out), c.o.dsnFlag(), cli.ShellQuote(c.o.crawlID), outName(c.o.out), cli.ShellQuote(c.o.crawlID+"-2"))
}
