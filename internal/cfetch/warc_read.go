package cfetch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/warc"
)

// runFromWARC is cfetch --from-warc: it fetches nothing, and writes a
// response record for each HTTP response in the WARC files named, made by
// the same code as a fetched one (content codings, charsets, --max-size,
// --save-dir), in the order of the files (those of one series in the order
// they were written, whatever order a glob gave them in).
func (c *command) runFromWARC(ctx context.Context, env *cli.Env) error {
	tool := env.Tool
	if len(env.Args) == 0 {
		return cli.Usagef("--from-warc: name the WARC files to read (FILE.warc.gz …)")
	}
	out, err := env.Output()
	if err != nil {
		return err
	}
	f, err := NewFetcher(&c.opts)
	if err != nil {
		return err
	}
	defer f.Close()
	rp := &replay{f: f, tool: tool, w: ndjson.NewWriter(out), seen: newReplaySeen(), held: map[string]*heldHop{}}
	tool.RateOut = true
	tool.StartProgress(time.Second, nil)
	for _, name := range warc.SeriesOrder(env.Args) {
		if ctx.Err() != nil || rp.failed {
			break
		}
		rp.file(ctx, name)
	}
	rp.flushHeld()
	if err := rp.w.Flush(); err != nil && !rp.failed {
		tool.Fail(fmt.Errorf("write output: %w", err))
	}
	if err := env.CloseOutput(); err != nil {
		tool.Fail(err)
	}
	return tool.Done(ctx)
}

// replay turns WARC records into response records.
type replay struct {
	f    *Fetcher
	tool *cli.Tool
	w    *ndjson.Writer
	seen *replaySeen
	// held are the redirects whose next hop has not been read yet, by the
	// URL of that hop: the response there is written with their chain.
	held   map[string]*heldHop
	failed bool   // the output failed
	cur    string // the file being read
}

// ref is where a response record is: to read it again for a revisit.
type ref struct {
	file   string
	offset int64
	skip   int
}

// replaySeen indexes the response records read so far, for revisits:
// by record ID, by target URI (the latest), by payload digest.
type replaySeen struct {
	byID, byURI, byDigest map[string]ref
	methods               map[string]string // request record ID → method
}

func newReplaySeen() *replaySeen {
	return &replaySeen{byID: map[string]ref{}, byURI: map[string]ref{}, byDigest: map[string]ref{}, methods: map[string]string{}}
}

// file replays one WARC file.
func (rp *replay) file(ctx context.Context, name string) {
	fh, err := os.Open(name)
	if err != nil {
		rp.tool.Fail(fmt.Errorf("--from-warc: %v", err))
		return
	}
	defer fh.Close()
	r := warc.NewReader(fh, name)
	rp.cur = name
	// A record is replayed once the record after it is read: warcio (and
	// pywb and Browsertrix with it) writes an exchange's request record
	// after its response, and the response needs the request's method.
	var pending *warc.Record
	replayPending := func() {
		if pending != nil && ctx.Err() == nil && !rp.failed {
			rp.record(ctx, name, pending)
		}
		pending = nil
	}
	defer replayPending()
	for ctx.Err() == nil && !rp.failed {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		rp.tool.Stats.In.Add(1)
		if err != nil {
			replayPending()
			// "cfetch: crawl.warc.gz: offset 1234: truncated record"
			rp.tool.Printf("%v", err)
			rp.tool.Stats.Drop("warc_corrupt")
			rp.tool.MarkPartial()
			continue
		}
		if rec.Type() == warc.TypeRequest {
			rp.record(ctx, name, rec) // its method, for the response before it
			replayPending()
			continue
		}
		replayPending()
		pending = rec
	}
}

// record replays one WARC record, or counts it as skipped.
func (rp *replay) record(ctx context.Context, name string, rec *warc.Record) {
	st := rp.tool.Stats
	target := strings.Trim(rec.Get("WARC-Target-URI"), "<>")
	switch rec.Type() {
	case warc.TypeRequest:
		if m, _, ok := strings.Cut(string(rec.Block[:min(len(rec.Block), 32)]), " "); ok && isToken(m) {
			if id := rec.Get("WARC-Concurrent-To"); id != "" {
				rp.seen.methods[id] = m
			}
			rp.seen.methods[rec.Get("WARC-Record-ID")] = m
		}
		st.Drop("warc_request")
		return
	case warc.TypeResponse:
		if !bytes.HasPrefix(rec.Block, []byte("HTTP/")) {
			st.Drop("warc_not_http")
			return
		}
		here := ref{name, rec.Offset, rec.Skip}
		rp.seen.byID[rec.Get("WARC-Record-ID")] = here
		rp.seen.byURI[target] = here
		if d := rec.Get("WARC-Payload-Digest"); d != "" {
			rp.seen.byDigest[d] = here
		}
		if isRobotsURL(target) {
			st.Drop("warc_robots_txt")
			return
		}
		rp.emit(ctx, rec, target, rec.Block, rec.Get("WARC-Truncated"), false)
	case warc.TypeRevisit:
		rp.revisit(ctx, rec, target)
	default:
		st.Drop("warc_" + strings.ToLower(strings.NewReplacer(" ", "_", "/", "_").Replace(rec.Type())))
	}
}

// revisit replays a revisit record with the payload of the record it
// refers to: the page as it was then (a 304: unchanged), or the same
// payload under the revisit's own status and headers.
func (rp *replay) revisit(ctx context.Context, rec *warc.Record, target string) {
	st := rp.tool.Stats
	if isRobotsURL(target) {
		st.Drop("warc_robots_txt")
		return
	}
	var orig ref
	ok := false
	if id := rec.Get("WARC-Refers-To"); id != "" {
		orig, ok = rp.seen.byID[id]
	}
	// A server-not-modified revisit has no payload: a digest on it (of
	// nothing) would find any record with an empty payload, a robots.txt
	// 404 or a 204. Its page is found by its URL.
	if d := rec.Get("WARC-Payload-Digest"); !ok && d != "" && d != emptyPayloadDigest && !strings.HasSuffix(rec.Get("WARC-Profile"), "server-not-modified") {
		orig, ok = rp.seen.byDigest[d]
	}
	if u := strings.Trim(rec.Get("WARC-Refers-To-Target-URI"), "<>"); !ok && u != "" {
		orig, ok = rp.seen.byURI[u]
	}
	if !ok {
		orig, ok = rp.seen.byURI[target]
	}
	if !ok {
		// A page of the archive not replayed: exit 3, as a damaged record.
		rp.tool.Printf("%s: offset %d: revisit of %s: the record it refers to is not in the files read before it (name the file that holds it first)", rp.cur, rec.Offset, target)
		st.Drop("warc_revisit_unresolved")
		rp.tool.MarkPartial()
		return
	}
	o, err := readAt(orig)
	if err != nil {
		rp.tool.Printf("%v", err)
		st.Drop("warc_revisit_unresolved")
		rp.tool.MarkPartial()
		return
	}
	block := o.Block
	unchanged := true
	if strings.HasSuffix(rec.Get("WARC-Profile"), "identical-payload-digest") && bytes.HasPrefix(rec.Block, []byte("HTTP/")) {
		// The revisit's own status line and headers, the original's payload.
		head := rec.Block
		if h, ok := warc.PayloadOffset(head); ok {
			head = head[:h:h]
		} else {
			head = bytes.TrimRight(head, "\r\n")
			head = append(head[:len(head):len(head)], "\r\n\r\n"...)
		}
		if p, ok := warc.PayloadOffset(o.Block); ok {
			block = append(head, o.Block[p:]...)
			unchanged = false
		}
	}
	// The payload is the original's, and so is its truncation: a
	// revisit's own WARC-Truncated says its payload was left out (wget's
	// "length").
	rp.emit(ctx, rec, target, block, o.Get("WARC-Truncated"), unchanged)
}

// emptyPayloadDigest is the WARC-Payload-Digest of no payload at all.
var emptyPayloadDigest = warc.Digest(nil)

// readAt reads the record at r again.
func readAt(r ref) (*warc.Record, error) {
	fh, err := os.Open(r.file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return warc.ReadAt(fh, r.file, r.offset, r.skip)
}

// emit writes the response record of an HTTP response block; truncated
// is the WARC-Truncated of the record its payload was read from.
func (rp *replay) emit(ctx context.Context, rec *warc.Record, target string, block []byte, truncated string, unchanged bool) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" {
		rp.tool.Printf("%s: offset %d: WARC-Target-URI %q is not a URL", rp.cur, rec.Offset, target)
		rp.tool.Stats.Drop("warc_bad_target")
		return
	}
	method := rp.seen.methods[rec.Get("WARC-Concurrent-To")]
	if method == "" {
		method = rp.seen.methods[rec.Get("WARC-Record-ID")]
	}
	if method == "" {
		method = http.MethodGet
	}
	// The request as a bare URL line reads; its method when not GET.
	rq := struct {
		Kind   string `json:"kind"`
		URL    string `json:"url"`
		Method string `json:"method,omitempty"`
	}{record.KindRequest, target, method}
	if method == http.MethodGet {
		rq.Method = ""
	}
	raw, _ := json.Marshal(rq)
	j := &job{raw: raw, url: u, method: method, req: record.Request{URL: target, Method: method}}
	j.warcID = rec.Get("WARC-Record-ID") // the record it was read from
	out := outcome{url: target}
	br := bufio.NewReader(bytes.NewReader(block))
	hreq := &http.Request{Method: method, URL: u}
	resp, err := http.ReadResponse(br, hreq)
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
		// An interim response (100 Continue, 103 Early Hints) recorded
		// before the final one, as an HTTP client skips it.
		resp, err = http.ReadResponse(br, hreq)
	}
	if err != nil {
		out.err = fetchErr(ErrProtocol, "the WARC record's HTTP response: %v", err)
	} else {
		out.status, out.header = resp.StatusCode, resp.Header
		out.body, out.err = readBody(ctx, resp, rp.f.opts, rp.f.mem.reserve())
		if truncated != "" && out.err == nil {
			j.warnings = append(j.warnings, fmt.Sprintf("recorded truncated in the WARC file (WARC-Truncated: %s)", truncated))
		}
	}
	out.unchanged = unchanged
	if h := rp.held[target]; h != nil {
		// The last hop of a chain of redirects: one response, as cfetch
		// writes it when it follows them.
		delete(rp.held, target)
		j.raw, j.redirects = h.raw, h.chain
		rp.tool.Stats.Drop("warc_redirect_followed")
	}
	next := ""
	if out.err == nil && isRedirect(out.status) && rp.f.opts.FollowRedirects {
		if n, err := resolveLocation(u, out.header.Get("Location")); err == nil {
			next = n.String()
		}
	}
	r := rp.f.record(j, &out)
	if t, err := time.Parse(time.RFC3339Nano, rec.Get("WARC-Date")); err == nil {
		r.FetchedAt = t.UTC().Format(timeLayout)
	}
	r.DurationMS = 0
	if out.err != nil {
		rp.tool.Stats.Error(out.err.Code)
	} else {
		rp.tool.Stats.Count("status", fmt.Sprint(out.status), 1)
	}
	line, err := r.line()
	r.release()
	if err == nil && next != "" && next != target {
		// Held until its next hop is read (or the files end).
		rp.held[next] = &heldHop{raw: j.raw, chain: append(j.redirects[:len(j.redirects):len(j.redirects)], record.Redirect{URL: target, Status: out.status}), line: line}
		return
	}
	rp.writeLine(line, err)
}

// heldHop is a redirect read from a WARC file whose next hop is not yet
// read: the first request of its chain, the chain so far, and its own
// response line, written if the chain never ends in the files.
type heldHop struct {
	raw   []byte
	chain []record.Redirect
	line  []byte
}

// flushHeld writes the redirects whose next hop was not in the files.
func (rp *replay) flushHeld() {
	for _, h := range rp.held {
		rp.writeLine(h.line, nil)
	}
	clear(rp.held)
}

func (rp *replay) writeLine(line []byte, err error) {
	if rp.failed {
		return
	}
	if err == nil {
		err = rp.w.WriteLine(line)
	}
	if err != nil {
		rp.failed = true
		rp.tool.Fail(fmt.Errorf("write output: %w", err))
		return
	}
	rp.tool.Stats.Out.Add(1)
}

// isRobotsURL: cfetch's own robots.txt fetches are in its WARC files, as
// in Heritrix's and wget's; they were never response records.
func isRobotsURL(target string) bool {
	u, err := url.Parse(target)
	return err == nil && u.Path == "/robots.txt" && u.RawQuery == ""
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}
