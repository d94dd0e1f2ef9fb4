package crawl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// A stage of the loop that ends while pop still hands out requests breaks
// the loop: the records it would have passed on, and the acks among them,
// never reach push. Nobody writes to the pipes around it any more, so no
// write error carries its end upstream, and pop would wait for the acks
// until the leases expire (five minutes by default), then hand the
// requests out again to a loop that cannot finish them: cexport writing
// to a full disk hung the crawl. The crawl stops the loop at once instead
// (the others drain as after a Ctrl-C: what is in flight goes back to the
// queue) and ends failed, naming the stage.

// errStageEnded stops the loop when a stage ended before pop.
var errStageEnded = errors.New("a stage of the loop ended while it ran")

// loopBreak remembers the stage that broke the loop.
type loopBreak struct {
	once sync.Once
	by   atomic.Pointer[string] // the failure, as finish lists it
}

// upstreamWait bounds how long a stage that read the end of its input
// waits for the stage before it, which closed it, to be seen ended.
const upstreamWait = 10 * time.Second

// stageEnded is called as stage i of the loop ends (ended[i] is closed
// then). Pop is stages[0], run in this process; a stage that ends while
// pop runs, and the loop is not draining already, stops the loop.
func (c *crawl) stageEnded(loop context.Context, stages []*stage, ended []chan struct{}, i int) {
	pop := stages[0].in
	if i == 0 || pop == nil || pop.exited.Load() || loop.Err() != nil {
		return
	}
	desc := culprit(stages, ended, i)
	c.brk.once.Do(func() {
		c.brk.by.Store(&desc)
		c.tool.Printf("%s while the crawl ran: the loop is stopped (what is in flight goes back to the queue)", desc)
		if c.state.stop != nil {
			c.state.stop(fmt.Errorf("%w: %s", errStageEnded, desc))
		}
	})
}

// culprit names the failure that ended stage i: its own, or, when it
// ended well (it read the end of its input), that of the nearest stage
// before it that ended, since it was that stage's end that closed it.
func culprit(stages []*stage, ended []chan struct{}, i int) string {
	for j := i; ; j-- {
		code, desc := stages[j].status()
		if code != cli.ExitOK {
			return desc
		}
		if j == 1 || !waitEnded(ended[j-1]) {
			return stages[j].name + " ended before the loop did"
		}
	}
}

func waitEnded(ch <-chan struct{}) bool {
	t := time.NewTimer(upstreamWait)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// brokenBy is the failure of the stage that broke the loop, or "".
func (c *crawl) brokenBy() string {
	if p := c.brk.by.Load(); p != nil {
		return *p
	}
	return ""
}
