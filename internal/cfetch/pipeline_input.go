package cfetch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
	"golang.org/x/net/http/httpguts"
)

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
		j.ready, j.passed = env.Raw, env.Kind
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
	if err := record.CheckURL(r); err != nil {
		return err
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
