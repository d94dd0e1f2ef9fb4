package cfetch

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// emitter writes, in order, the records that need no fetch.
func (p *pipeline) emitter() {
	for it := range p.emit {
		switch {
		case it.a != nil && it.a.release:
			p.out <- outLine{b: it.a.j.raw, released: true}
		case it.a != nil:
			p.writeResponse(it.a.j, p.fetch.record(it.a.j, it.a.out))
		default:
			p.out <- outLine{b: it.line, ack: it.ack, passed: it.passed}
		}
		p.report(&finish{kind: finEmitted}, false)
	}
}

// writeResponse sends a response to the writer, with the memory its
// line holds and what it counts once written.
func (p *pipeline) writeResponse(j *job, resp *response) {
	fitLine(resp, maxRecordLine)
	counts := &respCounts{status: resp.Status, err: resp.Error, unchanged: resp.Unchanged, size: resp.Size, cached: resp.Cached}
	line, err := resp.line()
	if err != nil {
		resp.release()
		p.tool.Fail(fmt.Errorf("%s: cannot encode the response: %v", j.pos, err))
		return
	}
	p.out <- outLine{b: line, res: resp.res, resp: counts}
}

// respCounts is what a response counts in the stats once written, as
// pages are counted out: a response the output never took (its reader
// gone) is in no count.
type respCounts struct {
	status    int
	err       string
	unchanged bool
	size      int64
	cached    bool
}

func (c *respCounts) add(s *cli.Stats) {
	if c.status != 0 {
		s.Count("status", strconv.Itoa(c.status), 1)
	}
	if c.err != "" {
		s.Error(c.err)
	}
	if c.unchanged {
		// The body the server did not send again: what a recrawl saves.
		s.Count("unchanged", "responses", 1)
		s.Count("unchanged", "bytes_saved", c.size)
	}
	if c.cached {
		// Answered by the cache without asking the server: not known to
		// be unchanged.
		s.Count("from_cache", "responses", 1)
	}
}

// write is the single writer. It flushes whenever no other record is
// waiting, so a consumer never waits on a buffer. After a write error it
// stops the reader and discards the rest.
func (p *pipeline) write() {
	var failed error
	for line := range p.out {
		if failed != nil {
			line.res.release()
			continue
		}
		err := p.w.WriteLine(line.b)
		line.res.release()
		if err == nil && len(p.out) == 0 {
			err = p.w.Flush()
		}
		if err != nil {
			failed = err
			p.writeFailed(err)
			p.stop()
			continue
		}
		p.tool.Stats.Out.Add(1)
		if line.ack {
			p.acks.Add(1)
		}
		if line.passed != "" {
			p.tool.Stats.Count("passed", line.passed, 1)
		}
		if line.released {
			p.tool.Stats.Count("interrupted", "released", 1)
		}
		if line.resp != nil {
			line.resp.add(p.tool.Stats)
		}
	}
	if failed == nil {
		if err := p.w.Flush(); err != nil {
			p.writeFailed(err)
		}
	}
}

// writeFailed reports a failed write of the output, unless its reader
// has gone after an interrupt: that is what the interrupt asked for
// (cli.ReaderGoneOnInterrupt), no failure.
func (p *pipeline) writeFailed(err error) {
	if !cli.ReaderGoneOnInterrupt(p.ctx, err) {
		p.tool.Fail(fmt.Errorf("write output: %w", err))
	}
}

// setProgressLocked refreshes the command's part of the progress line
// (the loop calls it once a second with p.mu held; the progress goroutine
// reads it).
func (p *pipeline) setProgressLocked(now time.Time) {
	hosts, paused, maxDelay := p.sched.snapshot(now)
	var b strings.Builder
	fmt.Fprintf(&b, "%d in flight, %d queued, %d hosts", p.sched.active, max(p.sched.held-p.sched.active, 0), hosts)
	if paused > 0 {
		fmt.Fprintf(&b, " (%d paused)", paused)
	}
	if maxDelay > 0 {
		fmt.Fprintf(&b, ", delay up to %s", maxDelay.Round(time.Millisecond))
	}
	if st := p.tool.Stats.JSON(p.tool.Name).Counts["status"]; len(st) > 0 {
		b.WriteString(", status")
		for _, k := range slices.Sorted(maps.Keys(st)) {
			fmt.Fprintf(&b, " %s:%d", k, st[k])
		}
	}
	p.progressMu.Lock()
	p.progressText = b.String()
	p.progressMu.Unlock()
}

// levels are the command's gauges in its stats: requests in flight and
// waiting, hosts, and hosts resting (paused by a 429, a Retry-After or
// failures in a row).
func (p *pipeline) levels() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	hosts, paused, _ := p.sched.snapshot(time.Now())
	return map[string]int64{
		"in_flight":     int64(p.sched.active),
		"queued":        int64(max(p.sched.held-p.sched.active, 0)),
		"hosts":         int64(hosts),
		"hosts_resting": int64(paused),
	}
}

// progress is the command's part of the live progress line.
func (p *pipeline) progress() string {
	p.progressMu.Lock()
	defer p.progressMu.Unlock()
	if p.progressText == "" {
		return fmt.Sprintf("%d in flight", p.inFlight.Load())
	}
	return p.progressText
}

// counters are named counts kept during the run and added to the stats at
// the end, after the "status" counts, so that the summary line starts
// with what matters most. Safe for concurrent use.
type counters struct {
	mu    sync.Mutex
	m     map[string]map[string]int64
	order []string
}

func newCounters() *counters { return &counters{m: map[string]map[string]int64{}} }

func (c *counters) add(group, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.m[group]
	if g == nil {
		g = map[string]int64{}
		c.m[group] = g
		c.order = append(c.order, group)
	}
	g[key]++
}

func (c *counters) flush(s *cli.Stats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, g := range c.order {
		for k, n := range c.m[g] {
			s.Count(g, k, n)
		}
	}
}
