package cextract

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// explainer writes, for each response, which rules matched, what each
// field found and why the empty ones are empty (--explain). It writes text
// for a person, not records.
type explainer struct {
	w      io.Writer
	only   *regexp.Regexp // explain only responses whose URL matches
	file   string
	cur    *responseTrace
	shown  int
	errOut error
}

type responseTrace struct {
	line    ndjson.Line
	resp    *record.Response
	page    *page
	skipped string
	rules   []*ruleTrace
	reqs    []string
	rejects []string
	notes   []string
}

// ruleTrace is what one rule did with the response.
type ruleTrace struct {
	kind, name string
	pos        rules.Pos
	matched    bool
	why        string
	contexts   int
	items      int
	empty      int
	badRows    int
	missing    []string
	data       []string
	fields     []*fieldTrace
	links      int
	linkStats  LinkStats
	sitemap    sitemapResult
}

// fieldTrace sums up one field over the contexts of a rule.
type fieldTrace struct {
	path      string
	evaluated int // contexts it was evaluated in
	found     int // values the selector found (before processors)
	withValue int // contexts where it had a value
	first     string
	required  bool
	reasons   []string
}

func (t *ruleTrace) field(path string) *fieldTrace {
	for _, f := range t.fields {
		if f.path == path {
			return f
		}
	}
	f := &fieldTrace{path: path}
	t.fields = append(t.fields, f)
	return f
}

func (f *fieldTrace) addReason(r string) {
	for _, x := range f.reasons {
		if x == r {
			return
		}
	}
	if len(f.reasons) < 3 {
		f.reasons = append(f.reasons, r)
	}
}

func (f *fieldTrace) sample(v process.Value) {
	if f.first != "" {
		return
	}
	if v.Kind == process.String {
		f.first = fmt.Sprintf("%q", shortText(v.Text, 70))
	} else {
		f.first = shortText(v.Text, 70)
	}
}

func shortText(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (e *explainer) start(line ndjson.Line, resp *record.Response, pg *page, skipped string) {
	e.cur = &responseTrace{line: line, resp: resp, page: pg, skipped: skipped}
	if e.only != nil && !e.only.MatchString(pageURL(resp, &record.Request{})) {
		e.cur = nil
	}
}

func (e *explainer) rule(kind, name string, pos rules.Pos, matched bool, why string) *ruleTrace {
	t := &ruleTrace{kind: kind, name: name, pos: pos, matched: matched, why: why}
	if e.cur != nil {
		e.cur.rules = append(e.cur.rules, t)
	}
	return t
}

func (e *explainer) request(url string, prio, depth int, rule string) {
	if e.cur != nil {
		e.cur.reqs = append(e.cur.reqs, fmt.Sprintf("%s  (depth %d, priority %d, rule %s)", url, depth, prio, rule))
	}
}

func (e *explainer) reject(url, reason string) {
	if e.cur != nil {
		e.cur.rejects = append(e.cur.rejects, fmt.Sprintf("%s  (%s)", url, reason))
	}
}

func (e *explainer) note(s string) {
	if e.cur != nil {
		e.cur.notes = append(e.cur.notes, s)
	}
}

func (e *explainer) finish() {
	t := e.cur
	e.cur = nil
	if t == nil {
		return
	}
	var b strings.Builder
	if e.shown > 0 {
		b.WriteString("\n")
	}
	e.shown++
	fmt.Fprintf(&b, "response %s  %s\n", t.line.Pos(), pageURL(t.resp, &record.Request{}))
	if t.page == nil {
		fmt.Fprintf(&b, "  not extracted: %s\n", skipText(t.skipped, t.resp))
		e.write(b.String())
		return
	}
	fmt.Fprintf(&b, "  status %d, %s, %d bytes of text\n", t.resp.Status, t.page.format, t.page.body.len())
	for _, r := range t.rules {
		where := ""
		if r.pos.Line > 0 {
			where = fmt.Sprintf(" (%s:%d)", e.file, r.pos.Line)
		}
		name := r.name
		if name == "" {
			name = "(unnamed)"
		}
		if !r.matched {
			fmt.Fprintf(&b, "  %s rule %s%s: does not apply: %s\n", r.kind, name, where, r.why)
			continue
		}
		fmt.Fprintf(&b, "  %s rule %s%s: applies\n", r.kind, name, where)
		switch r.kind {
		case "item":
			explainItems(&b, r)
		case "link":
			fmt.Fprintf(&b, "    %d link(s) found%s\n", r.links, linkStatsText(r.linkStats))
		case "sitemap":
			fmt.Fprintf(&b, "    read as %s: %d entries, %d URL(s) to follow, %d left out by follow/allow/deny/lastmod\n",
				r.sitemap.kind, r.sitemap.entries, r.links, r.sitemap.filtered)
			if r.sitemap.err != nil {
				fmt.Fprintf(&b, "    error: %v\n", r.sitemap.err)
			}
		}
	}
	for _, n := range t.notes {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	fmt.Fprintf(&b, "  => %d request(s)", len(t.reqs))
	if len(t.rejects) > 0 {
		fmt.Fprintf(&b, ", %d refused by the crawl policy", len(t.rejects))
	}
	b.WriteString("\n")
	for i, r := range t.reqs {
		if i == 10 {
			fmt.Fprintf(&b, "     … and %d more\n", len(t.reqs)-10)
			break
		}
		fmt.Fprintf(&b, "     %s\n", r)
	}
	for i, r := range t.rejects {
		if i == 10 {
			fmt.Fprintf(&b, "     … and %d more refused\n", len(t.rejects)-10)
			break
		}
		fmt.Fprintf(&b, "     refused: %s\n", r)
	}
	e.write(b.String())
}

func (e *explainer) write(s string) {
	if e.errOut != nil {
		return
	}
	_, e.errOut = io.WriteString(e.w, s)
}

func explainItems(b *strings.Builder, r *ruleTrace) {
	if r.contexts != 1 {
		fmt.Fprintf(b, "    each: %d element(s)\n", r.contexts)
	}
	for _, f := range r.fields {
		switch {
		case f.withValue == f.evaluated && f.evaluated > 0:
			fmt.Fprintf(b, "    %-14s %s", f.path, f.first)
			if f.evaluated > 1 {
				fmt.Fprintf(b, "  (in all %d)", f.evaluated)
			}
			b.WriteString("\n")
		case f.withValue > 0:
			fmt.Fprintf(b, "    %-14s %s  (in %d of %d; empty in the others: %s)\n", f.path, f.first, f.withValue, f.evaluated, emptyReason(f))
		default:
			req := ""
			if f.required {
				req = " (required)"
			}
			fmt.Fprintf(b, "    %-14s EMPTY%s: %s\n", f.path, req, emptyReason(f))
		}
	}
	fmt.Fprintf(b, "    => %d item(s)", r.items)
	if r.empty > 0 {
		fmt.Fprintf(b, ", %d without any field", r.empty)
	}
	if len(r.missing) > 0 {
		fmt.Fprintf(b, ", %d not written for a missing required field (%s)", len(r.missing), strings.Join(uniq(r.missing), ", "))
	}
	if r.badRows > 0 {
		fmt.Fprintf(b, ", %d CSV row(s) with the wrong number of cells", r.badRows)
	}
	b.WriteString("\n")
	for i, d := range r.data {
		if i == 3 {
			fmt.Fprintf(b, "       … and %d more\n", len(r.data)-3)
			break
		}
		fmt.Fprintf(b, "       %s\n", shortText(d, 300))
	}
}

func emptyReason(f *fieldTrace) string {
	if len(f.reasons) > 0 {
		return strings.Join(f.reasons, "; ")
	}
	if f.found == 0 {
		return "the selector matched nothing (or only white space)"
	}
	return fmt.Sprintf("the selector found %d value(s), the processors kept none", f.found)
}

func linkStatsText(s LinkStats) string {
	var parts []string
	for _, x := range []struct {
		n    int
		what string
	}{{s.Denied, "left out by allow/deny/domains"}, {s.Nofollow, "rel=nofollow"}, {s.Invalid, "not URLs"}, {s.TooLong, "too long"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func skipText(reason string, resp *record.Response) string {
	switch reason {
	case "skipped_error":
		return "the fetch failed: " + resp.Error
	case "skipped_status":
		return fmt.Sprintf("status %d (only 2xx responses are extracted)", resp.Status)
	case "skipped_binary":
		return "binary body (only XML and gzip-compressed text are read)"
	case skippedTooLarge:
		return "gzip-compressed body larger than 50 MiB uncompressed (the sitemap limit): not read"
	case skippedBadGzip:
		return "gzip-compressed body that does not decompress: not read"
	case "skipped_body_path":
		return "the body was saved to a file (body_path)"
	}
	return reason
}

func uniq(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
