package cextract

import (
	"bytes"
	"fmt"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// maxReportsPerError caps how often the same selector error is printed; the
// rest are counted in the summary.
const maxReportsPerError = 5

// processor turns response records into items, follow-up requests and acks,
// and passes other records through. It handles one record at a time.
type processor struct {
	tool *cli.Tool
	w    *ndjson.Writer
	x    *extractor

	reported map[string]int // selector error -> times printed
	writeErr bool           // a write failed and was reported
}

// handle processes one input record. It returns false when output failed
// and the run must stop.
func (p *processor) handle(line ndjson.Line, env record.Envelope) bool {
	if env.Kind != record.KindResponse {
		kind := env.Kind
		if kind == "" {
			kind = "no_kind"
		}
		p.tool.Stats.Count("passed", kind, 1)
		return p.write(env.Raw)
	}
	var resp record.Response
	if err := record.Decode(env.Raw, &resp); err != nil {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
		return true
	}
	var req record.Request
	if len(resp.Request) > 0 && !bytes.Equal(resp.Request, []byte("null")) {
		if err := record.Decode(resp.Request, &req); err != nil {
			p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: field \"request\": %v", err))
			return true
		}
	}
	out := p.extract(line, env.Raw, &resp, &req)
	if req.Lease != "" {
		url := req.URL
		if url == "" {
			url = resp.URL
		}
		out = p.encode(line, out, &record.Ack{Kind: record.KindAck, Lease: req.Lease, URL: url})
	}
	for _, b := range out {
		if !p.write(b) {
			return false
		}
	}
	return true
}

// extract returns the items and follow-up requests of one response. A
// panic while extracting is reported against the input line and yields
// nothing, so one pathological page cannot stop the stream; the page's ack
// is still written, so a crawl does not retry it forever.
func (p *processor) extract(line ndjson.Line, raw []byte, resp *record.Response, req *record.Request) (out [][]byte) {
	st := p.tool.Stats
	switch {
	case resp.Error != "":
		st.Count("responses", "skipped_error", 1)
		return nil
	case resp.Status != 0 && (resp.Status < 200 || resp.Status > 299):
		st.Count("responses", "skipped_status", 1)
		return nil
	case resp.Body == "" && resp.BodyBase64 != "":
		st.Count("responses", "skipped_binary", 1)
		return nil
	case resp.Body == "" && resp.BodyPath != "":
		st.Count("responses", "skipped_body_path", 1)
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			out = nil
			p.tool.Printf("%s: extraction failed: %v", line.Pos(), r)
			st.Error("panic")
			p.tool.MarkPartial()
		}
	}()
	pageURL := resp.URL
	if pageURL == "" {
		pageURL = req.URL
	}
	d := ParseDoc(resp.Body, pageURL)
	d.Record = raw
	st.Count("responses", "parsed", 1)
	if d.Degraded {
		st.Count("responses", "too_deep", 1)
	}
	if p.x.items != nil {
		datas, empty, errs := p.x.items.Extract(d)
		for _, err := range errs {
			p.selectorError(line, err)
		}
		if empty > 0 {
			st.Count("items", "empty", int64(empty))
		}
		for _, data := range datas {
			out = p.encode(line, out, &record.Item{
				Kind: record.KindItem, Type: p.x.typ, Data: data, URL: pageURL,
				CrawlID: req.CrawlID, AppID: req.AppID, Attrs: req.Attrs, FetchedAt: resp.FetchedAt,
			})
		}
		st.Count("items", "emitted", int64(len(datas)))
	}
	if p.x.links != nil {
		out = p.follow(line, out, d, pageURL, req)
	}
	return out
}

// follow appends the page's links as request records that inherit the
// crawl's identity and policy.
func (p *processor) follow(line ndjson.Line, out [][]byte, d *Doc, pageURL string, parent *record.Request) [][]byte {
	st := p.tool.Stats
	urls, ls := p.x.links.Links(d)
	for k, n := range map[string]int{"denied": ls.Denied, "invalid": ls.Invalid, "too_long": ls.TooLong} {
		if n > 0 {
			st.Count("links", k, int64(n))
		}
	}
	depth := parent.Depth + 1
	if parent.MaxDepth > 0 && depth > parent.MaxDepth {
		for range urls {
			st.Drop("maxdepth")
		}
		return out
	}
	for _, u := range urls {
		out = p.encode(line, out, &record.Request{
			Kind: record.KindRequest, URL: u, Referer: pageURL,
			Depth: depth, Priority: parent.Priority - 10,
			CrawlID: parent.CrawlID, AppID: parent.AppID, SpiderID: parent.SpiderID,
			MaxDepth: parent.MaxDepth, AllowedDomains: parent.AllowedDomains,
			AllowRegex: parent.AllowRegex, DenyRegex: parent.DenyRegex,
			DenyExtensions: parent.DenyExtensions, Expires: parent.Expires,
			UserAgent: parent.UserAgent, Attrs: parent.Attrs,
		})
	}
	st.Count("links", "emitted", int64(len(urls)))
	return out
}

// encode appends v as one line to out.
func (p *processor) encode(line ndjson.Line, out [][]byte, v any) [][]byte {
	b, err := record.Encode(v)
	if err != nil {
		p.tool.Printf("%s: cannot encode output record: %v", line.Pos(), err)
		p.tool.Stats.Error("encode")
		p.tool.MarkPartial()
		return out
	}
	return append(out, b)
}

// selectorError reports a selector that failed on a page: the first few
// times in full, then only in the counts.
func (p *processor) selectorError(line ndjson.Line, err error) {
	p.tool.Stats.Error("selector")
	p.tool.MarkPartial()
	if p.reported == nil {
		p.reported = map[string]int{}
	}
	msg := err.Error()
	p.reported[msg]++
	switch n := p.reported[msg]; {
	case n < maxReportsPerError:
		p.tool.Printf("%s: %s", line.Pos(), msg)
	case n == maxReportsPerError:
		p.tool.Printf("%s: %s (repeated %d times; further ones are only counted)", line.Pos(), msg, n)
	}
}

// write writes one record, and reports the first write error.
func (p *processor) write(b []byte) bool {
	if err := p.w.WriteLine(b); err != nil {
		p.failWrite(err)
		return false
	}
	p.tool.Stats.Out.Add(1)
	return true
}

func (p *processor) failWrite(err error) {
	if !p.writeErr {
		p.writeErr = true
		p.tool.Fail(fmt.Errorf("write output: %w", err))
	}
}
