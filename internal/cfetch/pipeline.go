package cfetch

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
	"golang.org/x/net/http/httpguts"
)

// job is one input record on its way through the pipeline: a request to
// fetch, or a line that is ready to be written as it is (a record passed
// through, or the response of a request that cannot be fetched).
type job struct {
	pos   string
	req   record.Request
	url   *url.URL
	raw   []byte
	ready []byte
}

// pipeline moves records from the reader through the dispatcher and the
// workers to the writer. Every record read is written exactly once, or
// counted as dropped.
type pipeline struct {
	tool  *cli.Tool
	fetch *Fetcher
	opts  *Options
	w     *ndjson.Writer

	jobs  chan *job   // reader → dispatcher: the read-ahead
	work  chan *job   // dispatcher → workers
	out   chan []byte // dispatcher and workers → writer
	stop  context.CancelFunc
	limbo atomic.Int64 // jobs read but not yet handed to a worker or the writer

	inFlight atomic.Int64
}

func newPipeline(tool *cli.Tool, f *Fetcher, opts *Options, w *ndjson.Writer) *pipeline {
	return &pipeline{
		tool:  tool,
		fetch: f,
		opts:  opts,
		w:     w,
		jobs:  make(chan *job, opts.Concurrency),
		work:  make(chan *job),
		out:   make(chan []byte, opts.Concurrency),
	}
}

// run processes the whole input and returns when every record read has been
// written (or dropped). When ctx is cancelled it stops reading, and still
// fetches and writes what was read. It does not wait for the reader, which
// may be blocked on a silent input.
func (p *pipeline) run(ctx context.Context, r *ndjson.Reader) {
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	p.stop = stop
	go p.read(readCtx, r)
	var wg sync.WaitGroup
	wg.Go(func() { p.dispatch(readCtx) })
	// Fetches are not cancelled by an interrupt: they carry their own timeouts.
	fetchCtx := context.WithoutCancel(ctx)
	for range p.opts.Concurrency {
		wg.Go(func() { p.worker(fetchCtx) })
	}
	go func() {
		wg.Wait()
		close(p.out)
	}()
	p.write()
	if n := p.limbo.Load(); n > 0 {
		// Read just as the run was stopped, never handed on.
		for range n {
			p.tool.Stats.Drop(p.dropReason(ctx))
		}
	}
}

func (p *pipeline) dropReason(ctx context.Context) string {
	if cli.Interrupted(ctx) {
		return "interrupted"
	}
	return "not_fetched"
}

// read turns input lines into jobs. It stops at the end of the input or
// when ctx is done.
func (p *pipeline) read(ctx context.Context, r *ndjson.Reader) {
	defer close(p.jobs)
	for line, env := range p.tool.Records(ctx, r, nil) {
		j := p.newJob(line, env)
		if j == nil {
			continue
		}
		p.limbo.Add(1)
		select {
		case p.jobs <- j:
			continue
		default:
		}
		select {
		case p.jobs <- j:
		case <-ctx.Done():
			return
		}
	}
}

// newJob classifies one input record. It returns nil for a record that was
// rejected (already reported).
func (p *pipeline) newJob(line ndjson.Line, env record.Envelope) *job {
	j := &job{pos: line.Pos(), raw: env.Raw}
	if env.Kind != "" && env.Kind != record.KindRequest {
		j.ready = env.Raw
		return j
	}
	if err := record.Decode(env.Raw, &j.req); err != nil {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
		return nil
	}
	if err := checkRequest(&j.req); err != nil {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
		return nil
	}
	u, fe := checkURL(j.req.URL)
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
	j.url = u
	return j
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

// dispatch decides when each job starts. This version starts them in input
// order as workers free up; per-host queues and delays belong here. After
// ctx is done it hands on what is already read, then stops.
func (p *pipeline) dispatch(ctx context.Context) {
	defer close(p.work)
	for {
		select {
		case j, ok := <-p.jobs:
			if !ok {
				return
			}
			p.handOn(j)
		case <-ctx.Done():
			for {
				select {
				case j, ok := <-p.jobs:
					if !ok {
						return
					}
					p.handOn(j)
				default:
					return
				}
			}
		}
	}
}

func (p *pipeline) handOn(j *job) {
	p.limbo.Add(-1)
	if j.ready != nil {
		p.out <- j.ready
		return
	}
	p.work <- j
}

// worker fetches jobs until the dispatcher is done.
func (p *pipeline) worker(ctx context.Context) {
	for j := range p.work {
		p.inFlight.Add(1)
		resp := p.fetch.Fetch(ctx, &j.req, j.url, j.raw)
		p.inFlight.Add(-1)
		if resp.Status != 0 {
			p.tool.Stats.Count("status", strconv.Itoa(resp.Status), 1)
		}
		if resp.Error != "" {
			p.tool.Stats.Error(resp.Error)
		}
		line, err := record.Encode(resp)
		if err != nil {
			p.tool.Fail(fmt.Errorf("%s: cannot encode the response: %v", j.pos, err))
			continue
		}
		p.out <- line
	}
}

// write is the single writer. It flushes whenever no other record is
// waiting, so a consumer never waits on a buffer. After a write error it
// stops the reader and discards the rest.
func (p *pipeline) write() {
	var failed error
	for line := range p.out {
		if failed != nil {
			continue
		}
		err := p.w.WriteLine(line)
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
	}
	if failed == nil {
		if err := p.w.Flush(); err != nil {
			p.tool.Fail(fmt.Errorf("write output: %w", err))
		}
	}
}

// progress is the command's part of the live progress line.
func (p *pipeline) progress() string {
	return fmt.Sprintf("%d in flight", p.inFlight.Load())
}
