package cqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// defaultBatch is how many records push applies in one transaction at
// most; a batch is also applied whenever the input stalls, so in the crawl
// loop batches are small and this only bounds a bulk load. Large batches
// pay there: a batch writes every page of the duplicate filter's index it
// touches, and 10,000 URLs spread over 1,000 hosts touch little more pages
// than 1,000 do (measured at 1 million queued: 19,000 pushes/s with
// batches of 1,000, 40,000 with 10,000).
const defaultBatch = 10000

// seedDefaults are the crawl fields push fills into requests lacking them.
type seedDefaults struct {
	crawlID, appID, spiderID, userAgent  string
	maxDepth, priority                   int
	expires                              int64
	allowedDomains, allow, deny, denyExt []string
	base                                 string
	round                                int
	// discoverFlag is --discover as given; discover the names it lists.
	discoverFlag, discover []string
}

func (d *seedDefaults) addFlags(f *cli.Flags) {
	f.StringVar(&d.crawlID, "crawlid", "", "the crawlid of requests that have none")
	f.StringVar(&d.appID, "appid", "", "the appid of requests that have none")
	f.StringVar(&d.spiderID, "spiderid", "", "the spiderid of requests that have none")
	f.IntVar(&d.maxDepth, "maxdepth", 0, "the maxdepth of requests that have none (0: no limit; DEPTH_LIMIT)")
	f.IntVar(&d.priority, "priority", 0, "the priority of requests that have none (higher first)")
	f.Int64Var(&d.expires, "expires", 0, "the expires (Unix seconds) of requests that have none")
	f.StringVar(&d.userAgent, "useragent", "", "the useragent of requests that have none")
	f.StringSliceVar(&d.allowedDomains, "allowed-domain", nil, "allowed_domains of requests that have none (repeatable)")
	f.StringArrayVar(&d.allow, "allow-regex", nil, "allow_regex of requests that have none: one `REGEX` each time (repeatable; a comma is part of it, as in \\d{1,3})")
	f.StringArrayVar(&d.deny, "deny-regex", nil, "deny_regex of requests that have none: one `REGEX` each time (repeatable)")
	f.StringSliceVar(&d.denyExt, "deny-extension", nil, "deny_extensions of requests that have none (repeatable)")
	f.StringVar(&d.base, "base", "", "resolve relative request URLs against `URL` (without it they are refused)")
	f.IntVar(&d.round, "round", 0, "the round of requests that have none (cqueue crawl numbers its rounds; see --refresh)")
	f.StringSliceVar(&d.discoverFlag, "discover", nil, "the discover of requests that have none: for each new host of a crawl, also queue its /robots.txt (robots: its Sitemap: lines, read by the rules' sitemap rules) and /sitemap.xml (sitemaps); `LIST` of robots, sitemaps")
}

func (d *seedDefaults) fill(req *record.Request) {
	set := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	set(&req.CrawlID, d.crawlID)
	set(&req.AppID, d.appID)
	set(&req.SpiderID, d.spiderID)
	set(&req.UserAgent, d.userAgent)
	if req.MaxDepth == 0 {
		req.MaxDepth = d.maxDepth
	}
	if req.Priority == 0 {
		req.Priority = d.priority
	}
	if req.Expires == 0 {
		req.Expires = d.expires
	}
	if _, ok := req.Extra["round"]; !ok && d.round > 0 {
		if req.Extra == nil {
			req.Extra = map[string]json.RawMessage{}
		}
		req.Extra["round"] = json.RawMessage(strconv.Itoa(d.round))
	}
	list := func(dst *[]string, v []string) {
		if len(*dst) == 0 && len(v) > 0 {
			*dst = v
		}
	}
	list(&req.AllowedDomains, d.allowedDomains)
	list(&req.AllowRegex, d.allow)
	list(&req.DenyRegex, d.deny)
	if req.DenyExtensions == nil && len(d.denyExt) > 0 {
		req.DenyExtensions = d.denyExt // an explicit [] (follow every extension) stays
	}
	setDiscover(req, d.discover)
}

// pushCmd is a run of cqueue push: its flags.
type pushCmd struct {
	s         Store
	d         seedDefaults
	rejects   string
	crawlMode bool
	batch     int
}

func pushCommand() *cli.Command {
	c := &pushCmd{batch: defaultBatch}
	return &cli.Command{Name: "push", Help: pushHelp, Flags: c.define, Run: c.run,
		Check: func(*cli.Env) error { return c.check() }}
}

var pushHelp = cli.Help{
	Usage:   "cqueue push [flags] [FILE...]",
	Summary: "queue requests and settle acks",
	Description: `Reads request records (or bare URL lines) and ack records on stdin or from FILEs.
Each request is checked against the crawl-request schema and its crawl policy
(maxdepth, allowed_domains, allow_regex, deny_regex, deny_extensions, expires),
then against its crawl's duplicate filter (unless dont_filter), and queued. An ack
finishes the leased request it names. Requests and acks are applied in batches, in
one transaction each, so a page's follow-ups and its ack commit together; a batch
is applied whenever the input stalls.

A request that still carries a "lease" came back unfetched (a pipeline stopped
before fetching it): it is returned to the queue at once, not counted as a retry.
Records of other kinds pass through to stdout. Refused requests are counted by
reason in the summary and, with --rejects FILE, written there with a "reason".

A request with max_pages, max_items, max_errors, max_time or max_idle sets its
crawl's budget (Scrapy's CLOSESPIDER_*, see cqueue crawl --max-pages); the acks
of a crawl with a budget count against it (a page, its items, or an error).`,
	Examples: `  cqueue push --db crawl.db --crawlid shop --appid demo < seeds.txt
  cqueue pop --db crawl.db --follow | cfetch | cextract -r shop.yml | cexport -r shop.yml -o items.csv | cqueue push --db crawl.db
  jq -c 'select(.kind == "request")' dump.jsonl | cqueue push --db other.db`,
}

func (c *pushCmd) define(f *cli.Flags) {
	c.s.AddFlags(f)
	c.s.AddQueueFlags(f)
	c.d.addFlags(f)
	f.BoolVar(&c.crawlMode, "crawl-mode", false, "require appid and crawlid (Scrapy Cluster's crawl-request schema)")
	f.StringVar(&c.rejects, "rejects", "", "write refused requests to `FILE` as records with a \"reason\"")
	f.IntVar(&c.batch, "batch", c.batch, "apply at most `N` records per transaction")
}

// check refuses settings push cannot run with.
func (c *pushCmd) check() error {
	if c.batch < 1 {
		return cli.Usagef("--batch %d: must be at least 1", c.batch)
	}
	if c.d.base != "" {
		if u, err := url.Parse(c.d.base); err != nil || !u.IsAbs() {
			return cli.Usagef("--base %q: not an absolute URL", c.d.base)
		}
	}
	var err error
	if c.d.discover, err = policy.ParseDiscover(c.d.discoverFlag); err != nil {
		return cli.Usagef("--discover: %v", err)
	}
	return nil
}

func (c *pushCmd) run(ctx context.Context, env *cli.Env) error {
	tool, files, stdin := env.Tool, env.Args, env.Stdin
	s, d, batch := &c.s, &c.d, c.batch
	stdout, err := env.Output()
	if err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	// URLs given as arguments are seeds, as with cfetch's input: cqueue
	// push --db crawl.db https://shop.example/
	var urls []string
	for _, a := range files {
		if isURLArg(a) {
			urls = append(urls, a)
		}
	}
	if len(urls) > 0 {
		if len(urls) != len(files) {
			return cli.Usagef("give seed URLs or files as arguments, not both (got %q and %q)", urls[0], firstFile(files))
		}
		files, stdin = nil, strings.NewReader(strings.Join(urls, "\n")+"\n")
	}
	fr, err := s.Open(ctx, env, true)
	if err != nil {
		return err
	}
	defer fr.Close()
	p := &pusher{tool: tool, f: fr, policy: frontier.Policy{CrawlMode: c.crawlMode}, defaults: d,
		mode: s.KeyMode(), out: ndjson.NewWriter(stdout), max: batch, now: env.Now, refresh: s.Refresh}
	if c.rejects != "" {
		rf, err := os.Create(c.rejects)
		if err != nil {
			tool.Fail(err)
			return tool.Done(ctx)
		}
		defer rf.Close()
		p.rejects = ndjson.NewWriter(rf)
	}
	// A leased record push cannot read (a request back unfetched, an ack)
	// still settles its lease: dead, with the reason, not in flight forever.
	tool.LeasePath = []string{"lease"}
	tool.Answer = func(ack []byte) {
		var a record.Ack
		if record.Decode(ack, &a) == nil {
			p.settle(a)
		}
	}
	// Upstream got the same signal: read what it still sends, so the acks
	// of the work it finishes are settled.
	tool.DrainOnInterrupt = env.DrainsOnInterrupt(files)
	tool.StartProgress(time.Second, nil)
	p.run(ctx, ndjson.NewReader(files, stdin))
	return tool.Done(ctx)
}

// pusher batches requests and acks into Frontier.Apply.
type pusher struct {
	tool     *cli.Tool
	f        frontier.Frontier
	policy   frontier.Policy
	defaults *seedDefaults
	mode     frontier.KeyMode
	out      *ndjson.Writer
	rejects  *ndjson.Writer
	max      int
	now      func() time.Time

	batch frontier.Batch
	raws  [][]byte // the input record of each batch entry, for --rejects
	// returned says which batch entries came back unfetched (leased):
	// queued again, they are counted as returned, not as queued.
	returned []bool
	// discovered says which batch entries discovery added (see
	// discover.go): counted apart, never written to --rejects.
	discovered []bool
	discovery  discoverer
	records    int    // records in the batch
	first      string // position of the batch's first record
	last       string // position of the last record read
	err        error

	lastApply time.Time // when the last batch was applied

	refresh time.Duration                // --refresh: list the fresh rounds of each entry
	rounds  map[string]map[string]string // the crawls' metadata, read once, for --refresh
	ctx     context.Context

	budget budgetCounter // the crawls' budgets (push_budget.go)

	// again, when set (Seeds.Again), holds the keys this push queued:
	// an entry the duplicate filter refuses whose key is not among them
	// is queued again with dont_filter (see again.go).
	again map[dedupe.Key]bool
}

// freshRounds lists the rounds that make a request of crawl crawlID's
// round fresh (see --refresh). The crawl's metadata is read once: a run of
// the crawl holds its lock, so its rounds do not change meanwhile.
func (p *pusher) freshRounds(crawlID string, round int) []int {
	if p.refresh <= 0 || round <= 1 {
		return nil
	}
	meta, ok := p.rounds[crawlID]
	if !ok {
		m, err := p.f.CrawlMeta(p.ctx, crawlID)
		if err != nil {
			p.fail(err)
			return nil
		}
		if p.rounds == nil {
			p.rounds = map[string]map[string]string{}
		}
		p.rounds[crawlID], meta = m, m
	}
	return frontier.FreshRounds(meta, round, p.refresh, p.now())
}

// applyPace is the least time between two batches applied because the
// input stalled (a full batch is applied at once). Measured in the crawl
// loop over a site answering in 20 ms: one transaction per page otherwise,
// and push's CPU halves with it; the acks it delays free pop's window at
// most this much later.
const applyPace = 5 * time.Millisecond

func (p *pusher) run(ctx context.Context, r *ndjson.Reader) {
	p.ctx = context.WithoutCancel(ctx)
	for line, env := range p.tool.Records(ctx, r, func() { p.flush(ctx) }) {
		if p.err != nil {
			break
		}
		p.last = line.Pos()
		if p.records == 0 {
			p.first = p.last
		}
		switch {
		case env.IsRequest():
			p.request(line, env)
		case env.Kind == record.KindAck:
			p.ack(line, env)
		case env.Kind == kindRelease:
			p.release(line, env)
		case env.Kind == kindPause:
			// Said to the tools of the loop by pop; nothing for stdout.
			p.tool.Stats.Count("passed", "pause_dropped", 1)
		default:
			kind := env.Kind
			if kind == "" {
				kind = "no_kind"
			}
			p.tool.Stats.Count("passed", kind, 1)
			if err := p.out.WriteLine(env.Raw); err != nil {
				p.writeFailed(ctx, err)
			}
		}
		if p.records >= p.max {
			p.apply()
		}
		if p.err != nil {
			break
		}
	}
	p.flush(ctx)
	if p.rejects != nil {
		if err := p.rejects.Flush(); err != nil {
			p.fail(fmt.Errorf("write rejects: %w", err))
		}
	}
}

func (p *pusher) fail(err error) {
	if p.err == nil {
		p.err = err
		p.tool.Fail(err)
	}
}

// writeFailed fails the run for a failed write of stdout, unless its
// reader has gone after an interrupt: that is what the interrupt asked
// for (cli.ReaderGoneOnInterrupt), and the pushing goes on, so the acks
// and follow-ups still read are not lost.
func (p *pusher) writeFailed(ctx context.Context, err error) {
	if !cli.ReaderGoneOnInterrupt(ctx, err) {
		p.fail(fmt.Errorf("write stdout: %w", err))
	}
}

func (p *pusher) flush(ctx context.Context) {
	if p.records > 0 && !p.lastApply.IsZero() {
		// The input stalled soon after the last commit: in a crawl whose
		// pages come one at a time (slow servers), wait out applyPace so a
		// transaction carries a few pages' follow-ups and acks, not one.
		if d := applyPace - time.Since(p.lastApply); d > 0 {
			time.Sleep(d)
		}
	}
	p.apply()
	if err := p.out.Flush(); err != nil {
		p.writeFailed(ctx, err)
	}
}

// request queues one request: a record of kind request, or an object
// without a kind that has a "url" (Scrapy Cluster's crawl requests have
// none). One that does not decode, a field of the wrong type or a number
// out of its bounds, is reported with its line and refused as invalid.
func (p *pusher) request(line ndjson.Line, env record.Envelope) {
	var req record.Request
	err := record.Decode(env.Raw, &req)
	if n := record.Nesting(env.Raw); err == nil && n > record.MaxRequestNesting {
		// Queued, it could be fetched but its response not read.
		err = fmt.Errorf("nested %d levels deep, more than %d", n, record.MaxRequestNesting)
	}
	if err != nil {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid request: %v", err))
		p.writeReject(env.Raw, frontier.ReasonInvalid)
		return
	}
	if req.Lease != "" {
		// Came back unfetched: requeue it now, without counting a retry,
		// and finish the lease it was handed out with.
		e, err := frontier.NewEntry(req, p.mode)
		if err != nil {
			p.tool.Reject(line, "invalid", fmt.Errorf("invalid request: %v", err))
			return
		}
		e.DontFilter = true // it was seen when first queued
		p.add(e, env.Raw)
		p.returned[len(p.returned)-1] = true
		p.batch.Acks = append(p.batch.Acks, req.Lease)
		return
	}
	p.defaults.fill(&req)
	discover, err := requestDiscover(&req)
	if err != nil {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid request: %v", err))
		p.writeReject(env.Raw, frontier.ReasonInvalid)
		return
	}
	if p.defaults.base != "" && !strings.Contains(req.URL, "://") {
		if b, err := url.Parse(p.defaults.base); err == nil {
			if u, err := b.Parse(req.URL); err == nil {
				req.URL = u.String()
			}
		}
	}
	reason, detail := p.policy.Explain(&req, p.now())
	if reason == frontier.ReasonInvalid {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid request: %s", detail))
		p.writeReject(env.Raw, reason)
		return
	}
	if reason != "" {
		p.refused(env.Raw, reason)
		return
	}
	e, err := frontier.NewEntry(req, p.mode)
	if err != nil {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid request: %v", err))
		p.writeReject(env.Raw, frontier.ReasonInvalid)
		return
	}
	e.Fresh = p.freshRounds(e.CrawlID, e.Round)
	budget, err := requestBudget(&req)
	if err != nil {
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid request: %v", err))
		p.writeReject(env.Raw, frontier.ReasonInvalid)
		return
	}
	if budget != nil {
		p.budget.keep(e.CrawlID, budget)
	}
	p.add(e, env.Raw)
	p.discover(&req, discover)
}

func (p *pusher) add(e frontier.Entry, raw []byte) {
	p.batch.Entries = append(p.batch.Entries, e)
	p.raws = append(p.raws, raw)
	p.returned = append(p.returned, false)
	p.discovered = append(p.discovered, false)
	p.records++
}

func (p *pusher) ack(line ndjson.Line, env record.Envelope) {
	var a record.Ack
	if err := record.Decode(env.Raw, &a); err != nil || a.Lease == "" {
		if err == nil {
			err = fmt.Errorf(`no "lease"`)
		}
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid ack: %v", err))
		return
	}
	p.settle(a)
}

// settle adds an ack to the batch: one with an error fails its request
// (the frontier dead-letters it with the error as the reason).
func (p *pusher) settle(a record.Ack) {
	p.budget.note(a)
	if a.Error != "" {
		p.batch.Fails = append(p.batch.Fails, frontier.Fail{Lease: a.Lease, Reason: a.Error})
	} else {
		p.batch.Acks = append(p.batch.Acks, a.Lease)
	}
	p.records++
}

// apply commits the batch: its requests, then its acks.
func (p *pusher) apply() {
	if p.err != nil || len(p.batch.Entries)+len(p.batch.Acks)+len(p.batch.Fails)+len(p.batch.Releases) == 0 {
		return
	}
	p.lastApply = time.Now()
	// Counted before the acks are applied: a page is never neither in
	// flight nor counted, which would let pop hand out past the budget.
	err := p.budget.flush(context.Background(), p.f, p.now())
	var res frontier.BatchResult
	if err == nil {
		res, err = p.f.Apply(context.Background(), p.batch, p.now())
	}
	if err != nil {
		p.fail(err)
		// Accounted for: the batch is dropped as not_stored, and the
		// user is told where to resume.
		p.tool.Stats.DropN("not_stored", int64(p.records))
		p.tool.Printf("not stored: the %d requests and acks read from %s to %s (nothing was read after them); push them again", p.records, p.first, p.last)
		return
	}
	st := p.tool.Stats
	var again []int
	for i, r := range res.Pushed {
		if p.again != nil && p.queueAgain(i, r) {
			again = append(again, i)
			continue
		}
		switch {
		case p.discovered[i] && r.Queued:
			st.Out.Add(1)
			st.Count("discovered", "queued", 1)
		case p.discovered[i]:
			st.Count("discovered", r.Reason, 1)
		case r.Queued && p.returned[i]:
			st.Out.Add(1)
			st.Count("requests", "returned", 1)
		case r.Queued:
			st.Out.Add(1)
			st.Count("requests", "queued", 1)
		default:
			p.refused(p.raws[i], r.Reason)
		}
	}
	if res.Acks.Acked > 0 {
		st.Count("acks", "settled", int64(res.Acks.Acked))
	}
	if res.Acks.Unknown+res.FailUnknown > 0 {
		st.Count("acks", "unknown", int64(res.Acks.Unknown+res.FailUnknown))
	}
	if res.Failed > 0 {
		st.Count("acks", "failed", int64(res.Failed))
	}
	if res.Released > 0 {
		st.Count("requests", "released", int64(res.Released))
	}
	p.pushAgain(again)
	p.batch = frontier.Batch{Entries: p.batch.Entries[:0], Acks: p.batch.Acks[:0], Fails: p.batch.Fails[:0], Releases: p.batch.Releases[:0]}
	p.raws, p.returned, p.discovered = p.raws[:0], p.returned[:0], p.discovered[:0]
	p.records = 0
}

// refused counts a request the policy or the frontier did not queue.
func (p *pusher) refused(raw []byte, reason string) {
	p.tool.Stats.Count("refused", reason, 1)
	p.writeReject(raw, reason)
}

func (p *pusher) writeReject(raw []byte, reason string) {
	if p.rejects == nil {
		return
	}
	if err := p.rejects.WriteLine(withField(raw, "reason", reason)); err != nil {
		p.fail(fmt.Errorf("write rejects: %w", err))
	}
}

// withField returns the JSON object raw with one more string member.
func withField(raw []byte, key, value string) []byte {
	v, _ := json.Marshal(value)
	b := []byte(strings.TrimRight(string(raw), " \t\r\n"))
	if len(b) < 2 || b[len(b)-1] != '}' {
		return b
	}
	out := append([]byte{}, b[:len(b)-1]...)
	if strings.TrimSpace(string(b[1:len(b)-1])) != "" {
		out = append(out, ',')
	}
	out = append(out, fmt.Sprintf("%q:", key)...)
	out = append(out, v...)
	return append(out, '}')
}

// isURLArg reports whether an argument is a URL to queue rather than a
// file to read: http or https, and no such file.
func isURLArg(a string) bool {
	if !strings.HasPrefix(a, "http://") && !strings.HasPrefix(a, "https://") {
		return false
	}
	_, err := os.Stat(a)
	return err != nil
}

// firstFile is the first argument that is not a URL.
func firstFile(args []string) string {
	for _, a := range args {
		if !isURLArg(a) {
			return a
		}
	}
	return ""
}
