package cextract

import (
	"context"
	"fmt"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/crawlutils/crawlutils/internal/cextract/csvfeed"
	"github.com/crawlutils/crawlutils/internal/cextract/filestore"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// maxReportsPerError caps how often the same selector error is printed; the
// rest are counted in the summary.
const maxReportsPerError = 5

// processor turns response records into items, follow-up requests and acks,
// and passes other records through. It handles one record at a time, so
// memory is bounded by the largest response, not by the stream.
type processor struct {
	tool    *cli.Tool
	w       *ndjson.Writer
	rejects *ndjson.Writer // --rejects FILE, or nil
	// failures is --failures FILE, or nil (see failure).
	failures *ndjson.Writer
	x        *engine
	explain  *explainer // --explain, or nil

	items itemWriter
	reqs  requestEncoder
	out   [][]byte // records of the response in hand
	// pageItems counts the items of the response in hand, for its ack.
	pageItems int

	unchanged bool // --extract-unchanged

	outlinks *outlinkArchive // --warc-outlinks, or nil

	// files is --files-dir, or nil: then items of rules with files: are
	// written without their files (--explain).
	files *filestore.Store

	cands []candidate // a page's link candidates, reused (see follow)

	reported map[string]int // selector error -> times printed
	writeErr bool           // a write failed and was reported

	// ctx is the run's, for failOutput (nil: the output is in memory).
	ctx context.Context
}

// handle processes one input record. It returns false when output failed
// and the run must stop.
func (p *processor) handle(line ndjson.Line, env record.Envelope, fields []record.Field) bool {
	if env.Kind != record.KindResponse {
		if p.explain != nil {
			return true
		}
		kind := env.Kind
		if kind == "" {
			kind = "no_kind"
		}
		p.tool.Stats.Count("passed", kind, 1)
		return p.write(env.Raw)
	}
	resp, req, quoted, err := decodeLeavingBody(env.Raw, fields)
	if err != nil {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
		return true
	}
	p.out, p.pageItems = p.out[:0], 0
	if len(resp.RedirectRequest) > 0 {
		p.redirect(line, resp)
	} else if policy.Exempt(req) && p.explain == nil {
		p.fileResponse(line, resp, req, quoted)
	} else {
		p.extract(line, env.Raw, fields, resp, req, quoted)
	}
	if req.Lease != "" && p.explain == nil {
		url := req.URL
		if url == "" {
			url = resp.URL
		}
		p.encode(line, &record.Ack{Kind: record.KindAck, Lease: req.Lease, URL: url,
			CrawlID: req.CrawlID, Items: p.pageItems, FetchError: resp.Error})
	}
	for _, b := range p.out {
		if !p.write(b) {
			return false
		}
	}
	return true
}

// redirect appends the next hop of a redirect that cfetch handed back (see
// cfetch's --redirect-mode): the page is only a pointer to another, so
// nothing is extracted from it, as Scrapy's spiders never see a redirect.
// The frontier queues the hop through its duplicate filter.
func (p *processor) redirect(line ndjson.Line, resp *record.Response) {
	st := p.tool.Stats
	st.Count("responses", "redirect", 1)
	var next record.Request
	if err := record.Decode(resp.RedirectRequest, &next); err != nil || next.URL == "" {
		if err == nil {
			err = fmt.Errorf("no url")
		}
		p.tool.Printf("%s: invalid redirect_request: %v", line.Pos(), err)
		st.Drop("invalid_redirect")
		p.tool.MarkPartial()
		return
	}
	next.Kind = record.KindRequest
	if p.explain == nil {
		st.Count("requests", "redirect", 1)
	}
	p.encode(line, &next)
}

// extract appends the items and follow-up requests of one response to
// p.out; quoted is its body when decodeLeavingBody left it in the record.
// A panic while extracting is reported against the input line and yields
// nothing, so one pathological page cannot stop the stream; the page's
// ack is still written, so a crawl does not retry it forever.
func (p *processor) extract(line ndjson.Line, raw []byte, fields []record.Field, resp *record.Response, req *record.Request, quoted []byte) {
	st := p.tool.Stats
	pg, skipped := newPageFrom(raw, fields, resp, req, quoted)
	if p.explain != nil {
		p.explain.start(line, resp, pg, skipped)
		defer p.explain.finish()
	}
	if pg == nil {
		if p.explain == nil {
			p.failedFetch(resp, req, skipped)
		}
		st.Count("responses", skipped, 1)
		if t := skipText(skipped, resp); skipped == skippedTooLarge || skipped == skippedBadGzip {
			p.tool.Printf("%s: %s: %s", line.Pos(), pageURL(resp, req), t)
			p.tool.MarkPartial()
		}
		return
	}
	mark := len(p.out)
	defer func() {
		if r := recover(); r != nil {
			p.out = p.out[:mark]
			if p.outlinks != nil {
				p.outlinks.block.Reset()
				p.outlinks.n = 0
			}
			p.tool.Printf("%s: extraction failed: %v", line.Pos(), r)
			st.Error("panic")
			p.tool.MarkPartial()
		}
	}()
	st.Count("responses", "parsed", 1)
	if resp.Unchanged && !p.unchanged && p.explain == nil {
		// The page is as it was when last fetched: its items were
		// extracted then. Its links are followed all the same: the pages
		// they lead to may have changed.
		st.Count("responses", "unchanged", 1)
	} else {
		for _, r := range p.x.items {
			p.runItems(line, r, pg)
		}
	}
	p.follow(line, pg, req)
	if pg.doc != nil && pg.doc.Degraded {
		st.Count("responses", "too_deep", 1)
	}
}

// runItems runs one item rule on the page.
func (p *processor) runItems(line ndjson.Line, r *itemRule, pg *page) {
	st := p.tool.Stats
	ok, why := r.match.matches(pg)
	var tr *ruleTrace
	if p.explain != nil {
		tr = p.explain.rule("item", r.name, r.pos, ok, why)
	}
	if !ok {
		return
	}
	p.items.tr = tr
	p.items.errs = p.items.errs[:0]
	res := p.items.extract(r, pg)
	p.items.tr = nil
	for _, err := range p.items.errs {
		p.selectorError(line, err)
	}
	if res.empty > 0 {
		st.Count("items", "empty", int64(res.empty))
	}
	if res.badRows > 0 {
		st.Count("items", "csv_bad_rows", int64(res.badRows))
	}
	for _, c := range res.renamed {
		p.csvRenamed(line, pg, c)
	}
	if len(res.missing) > 0 && p.explain == nil {
		p.droppedItems(pg.resp, pg.req, r.name, res.missing)
	}
	for _, m := range res.missing {
		st.Drop("missing_field")
		if r.missing == nil {
			r.missing = map[string]int64{}
		}
		if r.missing[m] == 0 {
			r.missingOrder = append(r.missingOrder, m)
		}
		r.missing[m]++
	}
	if tr != nil {
		tr.items, tr.empty, tr.missing, tr.badRows = len(res.items), res.empty, res.missing, res.badRows
		for _, data := range res.items {
			tr.data = append(tr.data, string(data))
		}
		return
	}
	emitted := 0
	for _, data := range res.items {
		b := appendItem(nil, r.name, data, pg.url, pg.req.CrawlID, pg.req.AppID, pg.req.Attrs, pg.resp.FetchedAt)
		if round := pg.req.Extra["round"]; len(round) > 0 {
			b = appendRound(b, round)
		}
		if len(r.files) > 0 && p.files != nil {
			p.itemFiles(line, r, data, b, pg) // now, or once its files are in
			continue
		}
		p.out = append(p.out, b)
		emitted++
	}
	st.Count("items", "emitted", int64(emitted))
	p.pageItems += emitted
}

// follow appends the page's follow-up requests: the links of every link
// rule that applies, then the URLs of its sitemaps, each once, those the
// crawl policy refuses counted (and written to --rejects).
func (p *processor) follow(line ndjson.Line, pg *page, parent *record.Request) {
	st := p.tool.Stats
	var ls LinkStats
	e := emitter{p: p, line: line, pg: pg, parent: parent}
	// The candidates' slice is kept from page to page (cleared, so that
	// it holds no page alive).
	cands := p.cands
	defer func() { clear(cands); p.cands = cands[:0] }()
	for _, r := range p.x.links {
		ok, why := r.match.matches(pg)
		var tr *ruleTrace
		if p.explain != nil {
			tr = p.explain.rule("link", r.name, r.pos, ok, why)
		}
		if !ok {
			continue
		}
		before := ls
		var err error
		cands, err = r.links(pg, cands[:0], &ls)
		if err != nil {
			p.selectorError(line, fmt.Errorf("%s: %v", describeRule("link", r.name, r.file, r.pos), err))
		}
		for i := range cands {
			e.emit(&cands[i])
		}
		if tr != nil {
			tr.links = len(cands)
			tr.linkStats = LinkStats{Denied: ls.Denied - before.Denied, Invalid: ls.Invalid - before.Invalid, TooLong: ls.TooLong - before.TooLong, Nofollow: ls.Nofollow - before.Nofollow}
		}
	}
	for _, s := range p.x.sitemaps {
		ok, why := s.matches(pg)
		var tr *ruleTrace
		if p.explain != nil {
			tr = p.explain.rule("sitemap", s.name, s.pos, ok, why)
		}
		if !ok {
			continue
		}
		// A sitemap's URLs are followed as they are read: a sitemap of
		// 500,000 URLs is never held whole.
		n := 0
		res := s.links(pg, func(c candidate) { n++; e.emit(&c) }, &ls)
		if res.err != nil {
			st.Error("sitemap")
			p.tool.MarkPartial()
			p.tool.Printf("%s: %s: %v", line.Pos(), pg.url, res.err)
		}
		if res.kind != "" {
			st.Count("sitemaps", strings.ReplaceAll(res.kind, " ", "_"), 1)
		}
		if tr != nil {
			tr.links, tr.sitemap = n, res
		}
	}
	for k, n := range map[string]int{"denied": ls.Denied, "invalid": ls.Invalid, "too_long": ls.TooLong, "nofollow": ls.Nofollow} {
		if n > 0 {
			st.Count("links", k, int64(n))
		}
	}
	if e.emitted > 0 {
		st.Count("links", "emitted", int64(e.emitted))
	}
	if p.outlinks != nil {
		if err := p.outlinks.flush(pg.url, pg.resp.WARCRecordID); err != nil {
			p.failWrite(fmt.Errorf("--warc-outlinks: %w", err))
		}
	}
}

// emitter turns a page's link candidates into follow-up requests, one at a
// time, in the order they come: each URL once per page, the request's
// crawl policy applied, refusals counted (and written to --rejects).
type emitter struct {
	p      *processor
	line   ndjson.Line
	pg     *page
	parent *record.Request

	started bool
	pol     *policy.Rules
	depth   int
	// seen holds the URLs emitted by their 128-bit hashes (two URLs
	// collide with a chance of 2^-128): a sitemap's 500,000 in 15 to 30
	// MB, not 50.
	seen    map[xxh3.Uint128]struct{}
	emitted int
}

// start prepares what every candidate of the page shares, at the first.
func (e *emitter) start() {
	e.started = true
	p := e.p
	e.pol = policy.Compile(e.parent)
	if len(e.pol.Bad) > 0 {
		p.selectorError(e.line, fmt.Errorf("crawl policy of the request: ignored, does not compile: %s", strings.Join(e.pol.Bad, "; ")))
	}
	e.depth = e.parent.Depth + 1
	p.reqs.start(e.parent, e.pg.url)
	e.seen = map[xxh3.Uint128]struct{}{}
}

func (e *emitter) emit(c *candidate) {
	if !e.started {
		e.start()
	}
	h := xxh3.HashString128(c.url)
	if f := c.post; f != nil {
		h = xxh3.HashString128(f.method + " " + c.url + "\n" + f.body)
	}
	if _, dup := e.seen[h]; dup {
		return
	}
	e.seen[h] = struct{}{}
	p, st := e.p, e.p.tool.Stats
	prio := e.parent.Priority + c.rule.step
	if c.rule.priority != nil {
		prio = *c.rule.priority
	} else if c.rule.byKind && c.kind&(linkfind.Resources|linkfind.Scripts) != 0 {
		prio += resourcePriorityStep
	}
	// Within the bounds every reader of requests enforces.
	prio = min(max(prio, record.MinPriority), record.MaxPriority)
	if reason := refusal(e.pol, c, e.depth); reason != "" {
		st.Drop(reason)
		if p.explain != nil {
			p.explain.reject(c.url, reason)
		}
		if p.rejects != nil && p.explain == nil {
			if err := p.rejects.WriteLine(p.reqs.encode(c, prio, e.depth, reason)); err != nil {
				p.failWrite(fmt.Errorf("--rejects: %w", err))
			}
		}
		return
	}
	e.emitted++
	if p.explain != nil {
		p.explain.request(c.url, prio, e.depth, c.rule.name)
		return
	}
	p.out = append(p.out, p.reqs.encode(c, prio, e.depth, ""))
	if p.outlinks != nil {
		p.outlinks.add(c)
	}
	if len(p.out) >= spillAt {
		p.spill()
	}
}

// encode appends v as one line to p.out.
func (p *processor) encode(line ndjson.Line, v any) {
	if p.explain != nil {
		return
	}
	b, err := record.Encode(v)
	if err != nil {
		p.tool.Printf("%s: cannot encode output record: %v", line.Pos(), err)
		p.tool.Stats.Error("encode")
		p.tool.MarkPartial()
		return
	}
	p.out = append(p.out, b)
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
	if p.explain != nil {
		p.explain.note("error: " + msg)
	}
	p.reported[msg]++
	switch n := p.reported[msg]; {
	case n < maxReportsPerError:
		p.tool.Printf("%s: %s", line.Pos(), msg)
	case n == maxReportsPerError:
		p.tool.Printf("%s: %s (repeated %d times; further ones are only counted)", line.Pos(), msg, n)
	}
}

// csvRenamed reports a column of a CSV feed whose header could not be its
// name: a warning, once per feed; the items are whole all the same.
func (p *processor) csvRenamed(line ndjson.Line, pg *page, c csvfeed.Renamed) {
	var msg string
	if c.First > 0 {
		msg = fmt.Sprintf("CSV column %d's header %q is column %d's too: its values are named %q", c.Column, c.Header, c.First, c.Name)
	} else {
		msg = fmt.Sprintf("CSV column %d has no header: its values are named %q", c.Column, c.Name)
	}
	if p.explain != nil {
		p.explain.note("warning: " + msg)
	}
	p.tool.Printf("warning: %s: %s: %s", line.Pos(), pg.url, msg)
}

// reportMissing prints, once per rule and field, how many items were not
// written because a required field had no value.
func (p *processor) reportMissing() {
	if p.tool.Quiet {
		return
	}
	for _, r := range p.x.items {
		for _, f := range r.missingOrder {
			p.tool.Printf("%s: %d item(s) not written: required field %q had no value", describeRule("item", r.name, r.file, r.pos), r.missing[f], f)
		}
	}
}

// spillAt is how many records of one response are held before they are
// written: a sitemap of 500,000 URLs is not held whole. The order is kept
// (items, then requests, then the ack); only the ack must come last.
const spillAt = 4096

// spill writes the records held so far.
func (p *processor) spill() {
	for _, b := range p.out {
		if !p.write(b) {
			break
		}
	}
	clear(p.out)
	p.out = p.out[:0]
}

// write writes one record, and reports the first write error.
func (p *processor) write(b []byte) bool {
	if err := p.w.WriteLine(b); err != nil {
		p.failOutput(err)
		return false
	}
	p.tool.Stats.Out.Add(1)
	return true
}

// failOutput is failWrite for the output, whose reader going away after
// an interrupt is what the interrupt asked for (cli.ReaderGoneOnInterrupt):
// the run stops writing then, without a failure.
func (p *processor) failOutput(err error) {
	if p.ctx == nil || !cli.ReaderGoneOnInterrupt(p.ctx, err) {
		p.failWrite(err)
	}
}

func (p *processor) failWrite(err error) {
	if !p.writeErr {
		p.writeErr = true
		p.tool.Fail(fmt.Errorf("write output: %w", err))
	}
}

// requestEncoder writes follow-up request records. The crawl fields a child
// inherits are the same for every link of a page: they are encoded once
// per page.
//
// A child inherits the page request's deny_extensions. When the request
// has none, the frontier would hold the child to Scrapy's default list; a
// child found by a link rule with its own deny_extensions has been judged
// by that list already, so it carries "deny_extensions":[] (deny none)
// instead, and a link the rule follows is not refused at push.
type requestEncoder struct {
	inherited []byte // the inherited fields, each with its leading comma
	ownExt    []byte // the same for a rule with its own deny_extensions, when made
	child     record.Request
	referer   []byte // the page URL as a JSON string
	round     []byte // `,"round":N` when the page request has a round
	discover  []byte // `,"discover":[…]` when the page request has one
}

// start prepares for the children of parent found on the page at url.
func (e *requestEncoder) start(parent *record.Request, url string) {
	e.child = record.Request{
		Kind: record.KindRequest, CrawlID: parent.CrawlID, AppID: parent.AppID, SpiderID: parent.SpiderID,
		MaxDepth: parent.MaxDepth, AllowedDomains: parent.AllowedDomains, AllowRegex: parent.AllowRegex,
		DenyRegex: parent.DenyRegex, DenyExtensions: parent.DenyExtensions, Expires: parent.Expires,
		UserAgent: parent.UserAgent, Attrs: parent.Attrs,
	}
	e.inherited = appendInherited(e.inherited[:0], &e.child)
	e.round = e.round[:0]
	if round := parent.Extra["round"]; validRound(round) {
		e.round = append(append(e.round, `,"round":`...), round...)
	}
	e.discover = appendDiscover(e.discover[:0], parent.Extra["discover"])
	e.inherited = append(append(e.inherited, e.round...), e.discover...)
	e.ownExt = e.ownExt[:0]
	e.referer = record.AppendString(e.referer[:0], url)
}

// appendInherited appends the fields of child after its kind and url.
func appendInherited(b []byte, child *record.Request) []byte {
	enc, _ := record.Encode(child)
	const head = `{"kind":"request","url":""`
	return append(b, enc[len(head):len(enc)-2]...)
}

// encode returns the request record (with its newline) of candidate c;
// c.ownExt says its extension was judged by a list other than Scrapy's
// default; reason, when not empty, is added as the "reason" field of a
// reject. Every follow-up carries "link_kind" and "source" (and a POST
// form its "method", "body" and Content-Type).
func (e *requestEncoder) encode(c *candidate, priority, depth int, reason string) []byte {
	url := c.url
	inherited := e.inherited
	if c.ownExt && e.child.DenyExtensions == nil {
		if len(e.ownExt) == 0 {
			c := e.child
			c.DenyExtensions = []string{}
			e.ownExt = appendInherited(e.ownExt, &c)
			e.ownExt = append(append(e.ownExt, e.round...), e.discover...)
		}
		inherited = e.ownExt
	}
	// Room for the record but a POST body, a reason or escapes, so that
	// it is made in one allocation: 116 bytes besides these lengths at
	// most (the largest priority and depth, link_kind "navigation").
	b := make([]byte, 0, 128+len(url)+len(e.referer)+len(inherited)+len(c.source))
	b = append(b, `{"kind":"request","url":`...)
	b = record.AppendString(b, url)
	if f := c.post; f != nil {
		b = append(b, `,"method":`...)
		b = record.AppendString(b, f.method)
		b = append(b, `,"headers":{"Content-Type":"application/x-www-form-urlencoded"},"body":`...)
		b = record.AppendString(b, f.body)
	}
	if priority != 0 {
		b = append(b, `,"priority":`...)
		b = appendInt(b, priority)
	}
	if depth != 0 {
		b = append(b, `,"depth":`...)
		b = appendInt(b, depth)
	}
	if len(e.referer) > 2 {
		b = append(b, `,"referer":`...)
		b = append(b, e.referer...)
	}
	b = append(b, inherited...)
	if c.rule != nil && c.rule.render {
		b = append(b, `,"render":true`...)
	}
	if c.source != "" {
		b = append(b, linkKindField(c.kind)...)
		b = record.AppendString(b, c.source)
	}
	if reason != "" {
		b = append(b, `,"reason":`...)
		b = record.AppendString(b, reason)
	}
	return append(b, '}', '\n')
}

// linkKindField is `,"link_kind":"KIND","source":` for a link of kind k
// (one kind; navigation for none): a constant, so a follow-up's kind costs
// no encoding.
func linkKindField(k linkfind.Kind) string {
	switch k {
	case linkfind.Resources:
		return `,"link_kind":"resources","source":`
	case linkfind.Forms:
		return `,"link_kind":"forms","source":`
	case linkfind.Scripts:
		return `,"link_kind":"scripts","source":`
	}
	return `,"link_kind":"navigation","source":`
}
