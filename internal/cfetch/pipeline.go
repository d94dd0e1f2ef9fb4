package cfetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
	"golang.org/x/net/http/httpguts"
)

// pipeline moves records from the reader through the scheduler loop to the
// workers and the emitter, and from them to the single writer. Every record
// read is written exactly once, or counted as dropped.
//
//	reader ──in──▶ loop ──▶ scheduler ◀── report ── workers ──out──▶ writer
//	                          │    └──go work──▶      ▲
//	                          └──emit──▶ emitter ──out─┘
//
// The scheduler is guarded by one mutex and never blocks. A worker that
// finishes an exchange reports to it and takes its next job at once. The
// loop never blocks except in its select: it
// reads input while few records are held, or while requests could run but
// none of those held can start (a slow host's requests wait in memory
// while the input is searched for other hosts' work), never past
// --read-ahead (the back-pressure on stdin); it starts every job the
// scheduler allows, and
// hands records that need no fetch (other kinds, robots.txt denials) to
// the emitter, which writes them in order.
type pipeline struct {
	tool  *cli.Tool
	fetch *Fetcher
	opts  *Options
	w     *ndjson.Writer
	sched *scheduler
	count *counters
	holds *holdWriter // nil without --throttle-db or --throttle-redis

	// mu guards sched: the loop (new input, timers) and the workers and
	// emitter (reports) all drive it.
	mu       sync.Mutex
	in       chan *job     // reader → loop
	kick     chan struct{} // workers, emitter → loop: the scheduler changed
	emit     chan emitItem // scheduler → emitter
	out      chan outLine  // workers, emitter → writer
	stop     context.CancelFunc
	fetchCtx context.Context
	// ctx is the run's context, readCtx the reader's (also cancelled by
	// a write error): once either is done, no job starts (stopping).
	ctx, readCtx context.Context

	limbo    atomic.Int64 // jobs read but not yet taken by the loop
	inFlight atomic.Int64
	acks     atomic.Int64 // acks of rejected lines written (not input records)

	progressMu   sync.Mutex
	progressText string
}

// emitItem is a line to write as it is, or a job to answer without a
// fetch.
type emitItem struct {
	line []byte
	ack  bool // line is the ack of a rejected input line
	a    *answer
}

// outLine is a line for the writer, with the memory it holds in the budget
// (released once it is written, or discarded).
type outLine struct {
	b   []byte
	res *reservation
	ack bool // the ack of a rejected input line
}

func newPipeline(tool *cli.Tool, f *Fetcher, opts *Options, w *ndjson.Writer) *pipeline {
	p := &pipeline{
		tool:  tool,
		fetch: f,
		opts:  opts,
		w:     w,
		sched: newScheduler(opts),
		count: newCounters(),
		in:    make(chan *job),
		kick:  make(chan struct{}, 1),
		emit:  make(chan emitItem, opts.readAhead()+1),
		out:   make(chan outLine, opts.Concurrency),
	}
	p.sched.count = p.count.add
	if f.cache != nil {
		f.cache.count = p.count.add
	}
	if opts.ThrottleDebug {
		p.sched.debug = func(line string) { tool.Printf("%s", line) }
	}
	p.shareRests()
	return p
}

// run processes the whole input and returns when every record read has been
// written (or dropped). When ctx is cancelled it stops reading, drops the
// requests not yet started, and still finishes the exchanges in flight.
// It does not wait for the reader, which may be blocked on a silent input.
func (p *pipeline) run(ctx context.Context, r *ndjson.Reader) {
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	p.stop = stop
	p.ctx, p.readCtx = ctx, readCtx
	// Fetches are not cancelled by an interrupt: they carry their own
	// timeouts.
	p.fetchCtx = context.WithoutCancel(ctx)
	// A request line too broken to read that holds a lease is answered,
	// so that the crawl loop settles it (as dead) instead of renewing its
	// lease forever.
	p.tool.LeasePath = []string{"lease"}
	p.tool.Answer = p.answer
	p.holds.start()
	go p.read(readCtx, r)
	var emitters sync.WaitGroup
	emitters.Go(p.emitter)
	go func() {
		p.loop(ctx, readCtx)
		close(p.emit)
		emitters.Wait()
		close(p.out)
	}()
	p.write()
	p.holds.close()
	st := p.tool.Stats
	if cli.Interrupted(ctx) {
		// Every record read and neither written nor dropped yet was read
		// just as the run stopped (the reader may still hold one): dropped.
		for n := st.In.Load() - (st.Out.Load() - p.acks.Load()) - st.Dropped(); n > 0; n-- {
			st.Drop("interrupted")
		}
	} else if n := p.limbo.Load(); n > 0 {
		// Read just as the run was stopped, never taken.
		for range n {
			st.Drop(p.dropReason(ctx))
		}
	}
	p.count.flush(p.tool.Stats)
	if n := p.fetch.robotsBytes.Load(); n > 0 {
		p.tool.Stats.Count("robots", "bytes", n)
	}
}

func (p *pipeline) dropReason(ctx context.Context) string {
	if cli.Interrupted(ctx) {
		return "interrupted"
	}
	return "not_fetched"
}

// loop admits input into the scheduler and wakes it on time, until the
// input is over and nothing is held or running. Workers report to the
// scheduler themselves (report), so that a worker starts its next job
// without a round trip through the loop; they poke the loop afterwards.
func (p *pipeline) loop(ctx, readCtx context.Context) {
	s := p.sched
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	inputOpen := true
	soft, hard := p.opts.softReadAhead(), p.opts.readAhead()
	var lastProgress time.Time
	for {
		p.mu.Lock()
		now := time.Now()
		p.startLocked(now, false)
		if s.interrupted {
			inputOpen = false
		}
		if !inputOpen && s.done() {
			p.mu.Unlock()
			return
		}
		var in chan *job
		var stopped <-chan struct{}
		if !s.interrupted {
			// An interrupt (or a write error) also stops a run whose input
			// is all read.
			stopped = readCtx.Done()
		}
		if inputOpen {
			// Read on while under the soft limit; past it, only while a
			// request could run but none can start (every held request's
			// host is busy, delayed or paused): the input may hold work for
			// other hosts. At the hard limit, stop: back-pressure.
			if s.held < soft || s.held < hard && s.active < p.opts.Concurrency {
				in = p.in
			}
		}
		var wake <-chan time.Time
		if at := s.wake(now); !at.IsZero() {
			timer.Reset(max(at.Sub(now), 0))
			wake = timer.C
		}
		if now.Sub(lastProgress) >= time.Second {
			lastProgress = now
			s.evict(now)
			p.setProgressLocked(now)
		}
		p.mu.Unlock()
		select {
		case j, ok := <-in:
			if !ok {
				inputOpen = false
				break
			}
			if !j.ack {
				p.limbo.Add(-1)
			}
			p.mu.Lock()
			s.hold()
			if j.ready != nil {
				p.emit <- emitItem{line: j.ready, ack: j.ack}
			} else {
				s.add(j, time.Now())
			}
			p.mu.Unlock()
		case <-p.kick:
		case <-wake:
		case <-stopped:
			inputOpen = false
			p.mu.Lock()
			p.interruptLocked()
			p.mu.Unlock()
		}
		timer.Stop()
	}
}

// startLocked starts every job the scheduler allows now, each in a new
// worker goroutine, except the first when keepFirst is set: that one is
// returned for the caller (a worker) to run. Once the run is stopping it
// interrupts the scheduler first, whoever calls (the loop, or a worker
// that has just finished an exchange and would take its next job): no job
// starts after an interrupt. It also hands the scheduler's answers to the
// emitter; the emit channel holds as many items as records may be held,
// so that never blocks. p.mu must be held.
func (p *pipeline) startLocked(now time.Time, keepFirst bool) (first *job) {
	if p.stopping() {
		p.interruptLocked()
	}
	for j := p.sched.next(now); j != nil; j = p.sched.next(now) {
		if keepFirst && first == nil {
			first = j
			continue
		}
		go p.work(j)
	}
	for _, a := range p.sched.takeAnswers() {
		p.emit <- emitItem{a: &a}
	}
	return first
}

// stopping reports whether the run is being stopped: interrupted, or the
// output failed. It checks the run's context itself too, which is done
// as soon as the interrupt happens, whether or not it has reached readCtx.
func (p *pipeline) stopping() bool {
	return p.ctx != nil && (p.ctx.Err() != nil || p.readCtx.Err() != nil)
}

// interruptLocked stops the scheduler, once: the requests not yet started
// are dropped and counted. p.mu must be held.
func (p *pipeline) interruptLocked() {
	if p.sched.interrupted {
		return
	}
	reason := p.dropReason(p.ctx)
	for range p.sched.interrupt() {
		p.tool.Stats.Drop(reason)
	}
}

// report hands a finished exchange to the scheduler and returns the next
// job for the reporting worker, if any.
func (p *pipeline) report(f *finish, keepFirst bool) *job {
	p.mu.Lock()
	now := time.Now()
	p.sched.finish(f, now)
	j := p.startLocked(now, keepFirst)
	p.mu.Unlock()
	// The loop re-checks the input and its timer.
	select {
	case p.kick <- struct{}{}:
	default:
	}
	return j
}

// work makes exchanges, j's and then whatever the scheduler gives it next;
// a finished job's record goes to the writer before the report.
func (p *pipeline) work(j *job) {
	for j != nil {
		p.inFlight.Add(1)
		f := p.fetch.step(p.fetchCtx, j)
		p.inFlight.Add(-1)
		switch f.kind {
		case finDone:
			p.writeResponse(j, f.resp)
			f.resp = nil
		case finRetry:
			reason := strconv.Itoa(f.status)
			if j.last != nil && j.last.err != nil {
				reason = j.last.err.Code
			}
			p.count.add("retries", reason)
		}
		j = p.report(f, true)
	}
}

// emitter writes, in order, the records that need no fetch.
func (p *pipeline) emitter() {
	for it := range p.emit {
		switch {
		case it.a != nil && it.a.release:
			p.tool.Stats.Count("interrupted", "released", 1)
			p.out <- outLine{b: it.a.j.raw}
		case it.a != nil:
			p.writeResponse(it.a.j, p.fetch.record(it.a.j, it.a.out))
		default:
			p.out <- outLine{b: it.line, ack: it.ack}
		}
		p.report(&finish{kind: finEmitted}, false)
	}
}

// writeResponse counts a response and sends it to the writer, with the
// memory its line holds.
func (p *pipeline) writeResponse(j *job, resp *response) {
	fitLine(resp, maxRecordLine)
	if resp.Status != 0 {
		p.tool.Stats.Count("status", strconv.Itoa(resp.Status), 1)
	}
	if resp.Error != "" {
		p.tool.Stats.Error(resp.Error)
	}
	if resp.Unchanged {
		// The body the server did not send again: what a recrawl saves.
		p.tool.Stats.Count("unchanged", "responses", 1)
		p.tool.Stats.Count("unchanged", "bytes_saved", resp.Size)
	}
	line, err := resp.line()
	if err != nil {
		resp.release()
		p.tool.Fail(fmt.Errorf("%s: cannot encode the response: %v", j.pos, err))
		return
	}
	p.out <- outLine{b: line, res: resp.res}
}

// read turns input lines into jobs. It stops at the end of the input or
// when ctx is done.
//
// A line it cannot read that holds a lease is answered with an ack
// (cli.Tool's LeasePath and Answer, set by run): Reject calls answer on
// this goroutine, in the middle of Records, and the ack goes in as a job
// of its own, in its line's place among the others.
func (p *pipeline) read(ctx context.Context, r *ndjson.Reader) {
	defer close(p.in)
	for line, env := range p.tool.Records(ctx, r, nil) {
		j := p.newJob(line, env)
		if j != nil && !p.send(ctx, j) {
			return
		}
	}
}

// send hands a job to the loop, unless ctx ends first.
func (p *pipeline) send(ctx context.Context, j *job) bool {
	if !j.ack {
		p.limbo.Add(1) // an input record, to be accounted for
	}
	select {
	case p.in <- j:
		return true
	case <-ctx.Done():
		return false
	}
}

// answer sends the ack of a rejected input line to be written in its
// place (cli.Tool.Answer; called on the reader's goroutine only).
func (p *pipeline) answer(ack []byte) {
	p.send(p.readCtx, &job{pos: "ack", ready: ack, ack: true})
}

// newJob classifies one input record. It returns nil for a record that was
// rejected (already reported).
func (p *pipeline) newJob(line ndjson.Line, env record.Envelope) *job {
	j := &job{pos: line.Pos(), raw: env.Raw}
	if env.Kind != "" && env.Kind != record.KindRequest {
		j.ready = env.Raw
		return j
	}
	err := record.Decode(env.Raw, &j.req)
	if err == nil {
		err = checkRequest(&j.req)
	}
	if err != nil {
		return p.invalidRequest(line, env, j, err)
	}
	u, fe := checkURL(j.req.URL)
	if fe == nil {
		fe = p.fetch.prepare(j, u)
	}
	if fe != nil {
		// Not a bad record, but not fetchable: say so, and still answer it so
		// that a crawl loop can settle the request.
		p.tool.Printf("%s: %s", j.pos, fe.Detail)
		p.tool.MarkPartial()
		resp := p.fetch.failed(&j.req, strings.TrimSpace(j.req.URL), env.Raw, fe)
		p.tool.Stats.Error(fe.Code)
		b, err := record.Encode(resp)
		if err != nil {
			p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
			return nil
		}
		j.ready = b
		return j
	}
	if fe = p.fetch.admit(j); fe != nil {
		// A request the address policy refuses: a failed fetch, answered
		// before it is queued, so that nothing (robots.txt included) is
		// sent.
		resp := p.fetch.record(j, &outcome{url: j.url.String(), err: fe})
		b, err := record.Encode(resp.Response)
		if err != nil {
			p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
			return nil
		}
		p.tool.Stats.Error(fe.Code)
		j.ready = b
	}
	return j
}

// invalidRequest answers a request that cannot be fetched because one of
// its fields is unusable: it is reported like a bad record, but a record
// of kind request (or one with a "url" and no kind) still gets its
// response, with "error":"invalid_request", so that a crawl loop settles
// its lease. Other objects without a kind are dropped as invalid.
func (p *pipeline) invalidRequest(line ndjson.Line, env record.Envelope, j *job, err error) *job {
	u, hasURL := requestURL(env.Raw)
	if env.Kind != record.KindRequest && !hasURL {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
		return nil
	}
	p.tool.Printf("%s: invalid record: %v", j.pos, err)
	p.tool.MarkPartial()
	fe := fetchErr(ErrInvalidRequest, "invalid request: %v", err)
	b, eerr := record.Encode(p.fetch.failed(&j.req, u, env.Raw, fe))
	if eerr != nil {
		p.tool.Stats.Drop("invalid")
		return nil
	}
	p.tool.Stats.Error(fe.Code)
	j.ready = b
	return j
}

// requestURL returns the "url" member of the JSON object raw, trimmed, and
// whether it has one (of any type; "" unless it is a string).
func requestURL(raw []byte) (string, bool) {
	fields, _ := record.ScanObject(raw)
	u, has := "", false
	for _, f := range fields {
		if !strings.EqualFold(f.Key, "url") {
			continue
		}
		has = true
		var s string
		if json.Unmarshal(f.Value, &s) == nil {
			u = strings.TrimSpace(s)
		} else {
			u = ""
		}
	}
	return u, has
}

// checkRequest checks the fields net/http would refuse to send.
func checkRequest(r *record.Request) error {
	if strings.TrimSpace(r.URL) == "" {
		return errors.New(`field "url" is missing or empty`)
	}
	if r.Method != "" && !httpguts.ValidHeaderFieldName(r.Method) {
		return fmt.Errorf("field \"method\": invalid HTTP method %q", r.Method)
	}
	for name, v := range r.Headers {
		if err := checkHeader(name, []string{v}); err != nil {
			return fmt.Errorf("field \"headers\": %v", err)
		}
	}
	if !httpguts.ValidHeaderFieldValue(r.UserAgent) {
		return fmt.Errorf("field \"useragent\": invalid value %q (control characters are not allowed)", r.UserAgent)
	}
	return nil
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
			p.tool.Fail(fmt.Errorf("write output: %w", err))
			p.stop()
			continue
		}
		p.tool.Stats.Out.Add(1)
		if line.ack {
			p.acks.Add(1)
		}
	}
	if failed == nil {
		if err := p.w.Flush(); err != nil {
			p.tool.Fail(fmt.Errorf("write output: %w", err))
		}
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
