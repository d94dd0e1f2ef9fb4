package cextract

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/hostname"
	"github.com/crawlutils/crawlutils/internal/htmlparse"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/percent"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/selector"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// LinkExtractor finds the links of a page to follow, as Scrapy's
// LinkExtractor does. The zero value takes the href of every a and area
// element (Scrapy's default tags and attrs) and keeps every http and https
// link, once. It is safe for concurrent use once built.
type LinkExtractor struct {
	// Allow keeps only the links whose absolute URL matches one of these
	// (all links when empty); Deny drops the links matching any of these.
	// Scrapy's allow and deny: unanchored searches.
	Allow, Deny []*regexp.Regexp
	// AllowDomains keeps only links to these domains or their subdomains
	// (all when empty); DenyDomains drops links to these (Scrapy's
	// allow_domains and deny_domains, matched as policy.Domains does).
	AllowDomains, DenyDomains policy.Domains
	// MaxURLLength drops links whose URL is longer (Scrapy's
	// URLLENGTH_LIMIT); 0 means no limit.
	MaxURLLength int
	// Tags and Attrs are the elements and attributes links are read from
	// (lower case); nil means a and area, href (and SVG's xlink:href).
	Tags, Attrs []string
	// Restrict limits the search to the elements these select (Scrapy's
	// restrict_css and restrict_xpaths) and their descendants.
	Restrict []*selector.Selector
	// SkipNofollow skips links with rel="nofollow".
	SkipNofollow bool
	// Canonicalize writes each URL in canonical form (see canonicalizeURL).
	Canonicalize bool
	// KeepDuplicates returns a URL as often as the page links it
	// (Scrapy's unique=False).
	KeepDuplicates bool
	// Process runs over each attribute value before it is resolved
	// (Scrapy's process_value).
	Process process.Chain
	// Kinds, when not 0, finds the links of these kinds (linkfind.HTML:
	// every tag and attribute of each kind, srcset, CSS, forms, scripts)
	// instead of Tags and Attrs; PostForms adds POST forms to Forms.
	Kinds     linkfind.Kind
	PostForms bool

	// sources are the "TAG@ATTR" sources of Tags and Attrs (see
	// tagSources), made once when a rule is compiled.
	sources []string
}

// DefaultKinds is what a link rule without kinds, tags, attrs or select
// follows, and --links without --kinds: every navigation link (a and area
// href, frames, <link rel=next|prev|alternate|canonical>, meta refresh, the
// Link, Refresh and Content-Location headers…). A rule that wants only the
// a and area hrefs says tags: [a, area].
const DefaultKinds = linkfind.Navigation

// ruleKinds is the one place that decides the kinds a link rule follows:
// those it names; else DefaultKinds, unless it picks its links itself
// (tags, attrs or select), when it has none and reads its tags.
func ruleKinds(named linkfind.Kind, picksOwn bool) linkfind.Kind {
	if named != 0 || picksOwn {
		return named
	}
	return DefaultKinds
}

// LinkStats counts the links of a page that Links did not return, other
// than duplicates and links that are not http(s) (javascript:, mailto:, #top…).
type LinkStats struct {
	Denied   int // refused by Allow, Deny, AllowDomains or DenyDomains
	Invalid  int // an href that is not a URL, or a relative one with no base
	TooLong  int // longer than MaxURLLength
	Nofollow int // rel="nofollow", with SkipNofollow
}

// Links returns the page's links in document order, each once: the href of
// every <a> and <area> (or what Tags and Attrs say), resolved against the
// page's <base href> or its URL, without its #fragment, http and https
// only; javascript:, mailto:, tel:, data: and fragment-only links are
// skipped.
func (e *LinkExtractor) Links(d *selector.Doc) ([]string, LinkStats) {
	var out []string
	st, err := e.each(d, nil, nil, func(s string, _ *url.URL, _ *linkfind.Link) { out = append(out, s) })
	if err != nil {
		st.Invalid++
	}
	return out, st
}

// each calls fn with each link of d that passes the filters, and the
// link it was found as when e.Kinds is set (nil otherwise). pageURL is the
// response URL (for forms without action; d.URL when nil). An error is a
// restrict selector that failed on the page.
func (e *LinkExtractor) each(d *selector.Doc, pageURL *url.URL, pctx *process.Context, fn func(string, *url.URL, *linkfind.Link)) (LinkStats, error) {
	seen := newSeenLinks(e.KeepDuplicates)
	if e.Kinds != 0 {
		return e.eachKind(d, pageURL, pctx, seen, fn)
	}
	return e.eachHref(d, pctx, seen, fn)
}

// eachKind is each for an extractor with Kinds, with the set of the URLs
// seen already (nil: keep duplicates).
func (e *LinkExtractor) eachKind(d *selector.Doc, pageURL *url.URL, pctx *process.Context, seen *seenLinks, fn func(string, *url.URL, *linkfind.Link)) (LinkStats, error) {
	var st LinkStats
	var one [1]*html.Node
	regions, err := e.regions(d, one[:0])
	if err != nil {
		return st, err
	}
	if pageURL == nil {
		pageURL = d.URL
	}
	o := linkfind.Options{Kinds: e.Kinds, PostForms: e.PostForms, URL: pageURL, Base: d.Base(), JavascriptHrefs: len(e.Process) > 0}
	for _, region := range regions {
		linkfind.HTML(region, o, func(l linkfind.Link) { e.found(&l, pctx, seen, &st, fn) })
	}
	return st, nil
}

// eachHref is each for an extractor without Kinds: the values of Tags
// and Attrs, each passed with its kind (linkfind.AttrKind, else
// navigation) and its source "TAG@ATTR". It is apart from eachKind so that
// fn, which linkfind keeps, does not escape here: the common rule
// allocates no closure.
func (e *LinkExtractor) eachHref(d *selector.Doc, pctx *process.Context, seen *seenLinks, fn func(string, *url.URL, *linkfind.Link)) (LinkStats, error) {
	var st LinkStats
	base := d.Base()
	var one [1]*html.Node
	regions, err := e.regions(d, one[:0])
	if err != nil {
		return st, err
	}
	sources := e.sources
	if sources == nil {
		sources = tagSources(e.Tags, e.Attrs) // an extractor made by hand
	}
	var vals []process.Value
	var at []hrefAt
	l := new(linkfind.Link) // one for the page, not one a link
	for _, region := range regions {
		for n := region; n != nil; n = htmlparse.NextNode(n, region) {
			if n.Type != html.ElementNode {
				continue
			}
			vals, at = e.hrefs(n, sources, vals[:0], at[:0])
			if len(vals) == 0 {
				continue
			}
			if e.SkipNofollow && hasNofollow(n) {
				st.Nofollow += len(vals)
				continue
			}
			if len(e.Process) > 0 {
				vals = e.Process.Apply(pctx, vals, nil)
			}
			for i, v := range vals {
				// A processor that joins or splits the values leaves
				// them to the element's first attribute.
				a := at[0]
				if len(vals) == len(at) {
					a = at[i]
				}
				l.Kind, l.Source = linkfind.Navigation, a.source
				if k := linkfind.AttrKind(n, a.attr); k != 0 {
					l.Kind = k
				}
				e.keep(base, v.Text, l, seen, &st, fn)
			}
		}
	}
	return st, nil
}

// hrefAt says which attribute a value of hrefs came from.
type hrefAt struct {
	attr, source string
}

// found filters and passes on one link linkfind found.
func (e *LinkExtractor) found(l *linkfind.Link, pctx *process.Context, seen *seenLinks, st *LinkStats, fn func(string, *url.URL, *linkfind.Link)) {
	if e.SkipNofollow && l.Node != nil && hasNofollow(l.Node) {
		st.Nofollow++
		return
	}
	if len(e.Process) == 0 {
		e.keep(l.Base, l.Ref, l, seen, st, fn)
		return
	}
	for _, v := range e.Process.Apply(pctx, []process.Value{process.Str(l.Ref)}, nil) {
		e.keep(l.Base, v.Text, l, seen, st, fn)
	}
}

// keep resolves one value and passes it to fn unless a filter drops it.
func (e *LinkExtractor) keep(base *url.URL, ref string, l *linkfind.Link, seen *seenLinks, st *LinkStats, fn func(string, *url.URL, *linkfind.Link)) {
	// A value met before on the page, against the same base, ends as it
	// did then, and a link it made is a duplicate now: no need to resolve
	// it again (a page names most of its links twice or more).
	form := l != nil && l.Method != ""
	ra := refAt{base, ref}
	if seen != nil && !form {
		switch seen.refs[ra] {
		case refKept, refNotFollowed:
			return
		case refInvalid:
			st.Invalid++
			return
		}
	}
	u, err := ResolveLink(base, ref)
	switch {
	case errors.Is(err, errNotFollowed):
		seen.ended(ra, refNotFollowed, form)
		return
	case err != nil:
		seen.ended(ra, refInvalid, form)
		st.Invalid++
		return
	}
	seen.ended(ra, refKept, form)
	if e.Canonicalize {
		canonicalizeURL(u)
	}
	s := u.String()
	if seen != nil {
		key := s
		if form {
			key = l.Method + " " + s + "\n" + l.Body
		}
		if seen.urls[key] {
			return
		}
		seen.urls[key] = true
	}
	switch {
	case e.MaxURLLength > 0 && len(s) > e.MaxURLLength:
		st.TooLong++
	case !e.allowed(s, u.Hostname()):
		st.Denied++
	default:
		fn(s, u, l)
	}
}

// regions appends to buf the subtrees links are looked for in: the page,
// or the elements the Restrict selectors select.
func (e *LinkExtractor) regions(d *selector.Doc, buf []*html.Node) ([]*html.Node, error) {
	regions := append(buf, d.Root)
	if len(e.Restrict) > 0 {
		regions = regions[:0]
		for _, sel := range e.Restrict {
			nodes, err := sel.Elements(d, d.Root)
			if err != nil {
				return nil, err
			}
			regions = append(regions, nodes...)
		}
	}
	return regions, nil
}

// hrefs appends the link values of element n to vals, and to at the
// attribute each came from; sources are tagSources(e.Tags, e.Attrs).
func (e *LinkExtractor) hrefs(n *html.Node, sources []string, vals []process.Value, at []hrefAt) ([]process.Value, []hrefAt) {
	if e.Tags == nil && e.Attrs == nil {
		if n.DataAtom != atom.A && n.DataAtom != atom.Area {
			return vals, at
		}
		hs := &plainHrefs[0]
		if n.DataAtom == atom.Area {
			hs = &plainHrefs[1]
		}
		for _, a := range hs {
			if href, ok := htmlparse.Attr(n, a.attr); ok {
				return append(vals, process.Str(href)), append(at, a)
			}
		}
		return vals, at
	}
	tags := e.Tags
	if tags == nil {
		tags = defaultTags
	}
	t := slices.Index(tags, n.Data)
	if t < 0 {
		return vals, at
	}
	attrs := e.Attrs
	if attrs == nil {
		attrs = defaultAttrs
	}
	for i, a := range attrs {
		if v, ok := htmlparse.Attr(n, a); ok {
			vals = append(vals, process.Str(v))
			at = append(at, hrefAt{a, sources[t*len(attrs)+i]})
		}
	}
	return vals, at
}

var (
	defaultTags  = []string{"a", "area"}
	defaultAttrs = []string{"href"}
	// plainHrefs are what an extractor without tags and attrs reads, in
	// order, from a and from area.
	plainHrefs = [2][2]hrefAt{{{"href", "a@href"}, {"xlink:href", "a@xlink:href"}}, {{"href", "area@href"}, {"xlink:href", "area@xlink:href"}}}
)

// tagSources are the sources of the values of tags and attrs (nil:
// defaultTags, defaultAttrs), "TAG@ATTR", the attributes of each tag in a
// row: those of tags[i] and attrs[j] at i*len(attrs)+j. Nil for an
// extractor without tags or attrs.
func tagSources(tags, attrs []string) []string {
	if tags == nil && attrs == nil {
		return nil
	}
	if tags == nil {
		tags = defaultTags
	}
	if attrs == nil {
		attrs = defaultAttrs
	}
	out := make([]string, 0, len(tags)*len(attrs))
	for _, t := range tags {
		for _, a := range attrs {
			out = append(out, t+"@"+a)
		}
	}
	return out
}

// hasNofollow reports whether n has rel="nofollow" (among other words).
func hasNofollow(n *html.Node) bool {
	rel, ok := htmlparse.Attr(n, "rel")
	if !ok {
		return false
	}
	for _, w := range strings.Fields(rel) {
		if strings.EqualFold(w, "nofollow") {
			return true
		}
	}
	return false
}

func (e *LinkExtractor) allowed(s, host string) bool {
	if !e.AllowDomains.Empty() && !e.AllowDomains.Match(host) {
		return false
	}
	if e.DenyDomains.Match(host) {
		return false
	}
	if len(e.Allow) > 0 && !anyMatch(e.Allow, s) {
		return false
	}
	return !anyMatch(e.Deny, s)
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// errNotFollowed marks an href that is not a link to crawl (#top,
// javascript:, mailto:, …) as opposed to a broken one.
var errNotFollowed = errors.New("not an http(s) link")

// ResolveLink turns an href found on a page into the absolute URL to
// request: white space and line breaks removed, "\" read as "/", the
// fragment dropped, path and query made safe as w3lib's safe_url_string
// does (spaces, non-ASCII as UTF-8, and other bytes a URL cannot hold
// percent-encoded; existing escapes kept; a stray "%" in the path written
// "%25"), resolved against base ("http:/x" and "http:x" relative to an http
// base, as browsers and urljoin read them), host lower-cased (IDN hosts in
// punycode), default port and empty path normalized ("http://a" is
// "http://a/"). Fragment-only and non-http(s) links give errNotFollowed;
// a link the frontier would refuse (fingerprint.ScrapyCanonical fails or
// finds no host: a port out of range, a bad IP literal) gives an error.
func ResolveLink(base *url.URL, href string) (*url.URL, error) {
	h := selector.CleanHref(href)
	if h == "" || h[0] == '#' {
		return nil, errNotFollowed
	}
	sch := schemeOf(h)
	if sch != "" && sch != "http" && sch != "https" {
		return nil, errNotFollowed
	}
	h = percent.Slashes(h)
	if i := strings.IndexByte(h, '#'); i >= 0 {
		h = h[:i]
	}
	if sch != "" && base != nil && sch == base.Scheme && !strings.HasPrefix(h[len(sch)+1:], "//") {
		// WHATWG URL and urljoin: a special scheme without "//", the
		// base's own, starts a relative reference.
		h = h[len(sch)+1:]
	}
	h = safeHref(h)
	ref, err := percent.ParseURL(h)
	if err != nil {
		return nil, err
	}
	u := ref
	if !ref.IsAbs() {
		if base == nil {
			return nil, errors.New("relative link and no base URL")
		}
		u = base.ResolveReference(ref)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errNotFollowed
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, errors.New("no host")
	}
	u.Fragment, u.RawFragment = "", ""
	if err := hostname.SetHost(u); err != nil {
		return nil, err
	}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	// A query from base is written as base had it.
	u.RawQuery = fingerprint.SafeQuery(u.RawQuery)
	// cqueue push (frontier.NewEntry) refuses what Scrapy would refuse to
	// request (a port out of range, …) and a URL without a host, and
	// net/url accepts some hosts it then writes in a form it refuses. Most
	// links have a plain host and port, which net/url writes back as it
	// reads them and push takes: the full check (writing the URL, reading
	// it again, a canonicalization: ~1.5 us) is for the others. FuzzLinks
	// holds the shortcut to the full check.
	if plainHostPort(u) {
		return u, nil
	}
	s := u.String()
	if _, err := url.Parse(s); err != nil {
		return nil, err
	}
	c, err := fingerprint.ScrapyCanonical(s)
	if err != nil {
		return nil, err
	}
	if fingerprint.Host(c) == "" {
		return nil, errors.New("no host")
	}
	return u, nil
}

// plainHostPort reports whether u's host is a plain lower-case DNS name
// (letters, digits, "-" and ".") and its port empty or 1 to 65535.
func plainHostPort(u *url.URL) bool {
	host, port := u.Hostname(), u.Port()
	if host == "" || len(port) > 5 {
		return false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	if port == "" {
		return true
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// safeHref percent-encodes the path and query of a (fragment-less) href as
// w3lib's safe_url_string does with its default UTF-8 encoding, leaving the
// scheme and authority to net/url and normalizeHost.
func safeHref(h string) string {
	start := 0
	if sch := schemeOf(h); sch != "" {
		start = len(sch) + 1
	}
	if strings.HasPrefix(h[start:], "//") {
		if i := strings.IndexAny(h[start+2:], "/?"); i >= 0 {
			start += 2 + i
		} else {
			return h
		}
	}
	path, query, hasQuery := strings.Cut(h[start:], "?")
	out := h[:start] + fingerprint.SafePath(path)
	if hasQuery {
		out += "?" + fingerprint.SafeQuery(query)
	}
	return out
}

// schemeOf returns the lower-cased scheme of an absolute URL, or "".
func schemeOf(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(s[:i])
		default:
			return ""
		}
	}
	return ""
}
