package cfetch

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// TestWorkerTakesNoJobAfterInterrupt: a worker that finishes its exchange
// after the interrupt takes no queued job, even when the loop has not
// seen the interrupt yet; the queued requests are dropped.
func TestWorkerTakesNoJobAfterInterrupt(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.PerHost = 1
	tool := cli.NewTool("cfetch", io.Discard)
	f, err := NewFetcher(&o)
	if err != nil {
		t.Fatal(err)
	}
	p := newPipeline(tool, f, &o, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	p.ctx, p.readCtx = ctx, ctx
	now := time.Now()
	for _, u := range []string{"http://a.test/1", "http://a.test/2", "http://a.test/3"} {
		j := &job{method: http.MethodGet}
		j.setURL(mustURL(t, u))
		p.sched.hold()
		p.sched.add(j, now)
	}
	j := p.sched.next(now)
	cancel(cli.ErrInterrupted) // the loop is busy elsewhere
	if next := p.report(&finish{kind: finDone, j: j, key: j.key, status: 200}, true); next != nil {
		t.Fatalf("the worker took %s after the interrupt", next.url)
	}
	if !p.sched.done() || p.sched.active != 0 {
		t.Errorf("%d held, %d active after the interrupt", p.sched.held, p.sched.active)
	}
	if n := tool.Stats.Dropped(); n != 2 {
		t.Errorf("%d dropped, want the 2 queued", n)
	}
}
