package cextract

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// linkRule follows links: Scrapy's Rule(LinkExtractor(…)) as data.
type linkRule struct {
	name     string
	file     string
	pos      rules.Pos
	match    matcher
	ex       *LinkExtractor // the link extractor; with sel, only its filters
	sel      *field         // URLs from a selector (select:) instead of tags
	denyExt  policy.Extensions
	ownExt   bool // denyExt is the rule's deny_extensions, not Scrapy's default
	priority *int
	step     int
	requests bool // also the response's "requests" (follow_requests.go)
	render   bool // the follow-ups carry "render": true
	// byKind: the rule finds its links by kind (kinds:, or the default),
	// and its resources and scripts links get resourcePriorityStep; a
	// rule with tags and attrs only names the kinds of its links.
	byKind bool
}

// candidate is a URL a rule wants followed, before the crawl policy.
type candidate struct {
	url     string
	u       *url.URL
	rule    *linkRule
	denyExt policy.Extensions // the link rule's; none for sitemap entries
	// source says where the link was found, written as the follow-up's
	// "source" ("a@href", "header:Link", "sitemap:url", "select"): a
	// string linkfind, the rule (its tags and attrs) or this package
	// holds, never one made for the link.
	source string
	kind   linkfind.Kind // the link's kind, written as its "link_kind"
	ownExt bool          // denyExt is not Scrapy's default: write "deny_extensions":[]
	// post is a POST form's submission, nil for every other link: a
	// candidate stays small for the common rule.
	post *formPost
}

// formPost is a POST form's method and body.
type formPost struct {
	method, body string
}

// The sources of the follow-ups not found in a page's markup, headers or
// stylesheet (docs/rules.md#where-each-follow-up-comes-from-link_kind-and-source).
const (
	sourceSelect           = "select"            // a link rule's select:
	sourceRequests         = "requests"          // requests: true, what a rendered page asked for
	sourceRobotsSitemap    = "sitemap:robots"    // a sitemap robots.txt names
	sourceSitemapIndex     = "sitemap:index"     // a sitemap a sitemap index lists
	sourceSitemapURL       = "sitemap:url"       // a page a sitemap lists
	sourceSitemapAlternate = "sitemap:alternate" // another language's page (alternate: true)
)

// resourcePriorityStep is added to the priority of resources and scripts
// links (a rule without an absolute priority), so that the pages of a
// crawl come before what they embed.
const resourcePriorityStep = -10

func compileLinkRule(file string, i int, r *rules.Link) (*linkRule, error) {
	var errs rules.Errors
	what := fmt.Sprintf("link rule %q", r.Name)
	if r.Name == "" {
		what = fmt.Sprintf("link rule %d", i+1)
	}
	fail := func(pos rules.Pos, format string, a ...any) {
		errs = append(errs, rules.Errorf(file, pos, "%s: "+format, append([]any{what}, a...)...))
	}
	lr := &linkRule{name: r.Name, file: file, pos: r.Pos, match: newMatcher(r.Match), priority: r.Priority, step: r.PriorityStep, requests: r.Requests, render: r.Render}
	if lr.name == "" {
		lr.name = fmt.Sprintf("#%d", i+1)
	}
	ex := &LinkExtractor{
		Allow: r.Allow, Deny: r.Deny, MaxURLLength: DefaultMaxURLLength, Tags: r.Tags, Attrs: r.Attrs,
		SkipNofollow: r.SkipNofollow, Canonicalize: r.Canonicalize, KeepDuplicates: !r.Unique, Process: r.Process,
		Kinds: ruleKinds(r.Kinds, r.Select != nil || r.Tags != nil || r.Attrs != nil), PostForms: r.PostForms,
	}
	lr.match.css = ex.Kinds&linkfind.Resources != 0
	lr.byKind = ex.Kinds != 0
	if ex.Tags != nil && ex.Attrs == nil {
		ex.Attrs = defaultAttrs
	}
	if ex.Attrs != nil && ex.Tags == nil {
		ex.Tags = defaultTags
	}
	ex.sources = tagSources(ex.Tags, ex.Attrs)
	ex.AllowDomains = ruleDomains(r.AllowDomains, func(pos rules.Pos, err error) { fail(pos, "allow_domains: %v", err) })
	ex.DenyDomains = ruleDomains(r.DenyDomains, func(pos rules.Pos, err error) { fail(pos, "deny_domains: %v", err) })
	for _, s := range r.RestrictCSS {
		sel, err := selector.Compile("css:" + s.Value)
		switch {
		case err != nil:
			fail(s.Pos, "restrict_css: %v", err)
		case !sel.SelectsElements():
			fail(s.Pos, "restrict_css %q: selects text, not elements", s.Value)
		default:
			ex.Restrict = append(ex.Restrict, sel)
		}
	}
	for _, s := range r.RestrictXPath {
		sel, err := selector.Compile("xpath:" + s.Value)
		if err != nil {
			fail(s.Pos, "restrict_xpath: %v", err)
			continue
		}
		ex.Restrict = append(ex.Restrict, sel)
	}
	lr.ex = ex
	if r.DenyExtensions == nil {
		lr.denyExt = policy.DefaultExtensions
	} else {
		lr.denyExt, lr.ownExt = policy.NewExtensions(r.DenyExtensions), true
	}
	if r.Select != nil {
		fs := compileFields(file, what, "", []*rules.Field{r.Select}, lr.match.format, nil, func(err error) {
			if e, ok := err.(*rules.Error); ok {
				errs = append(errs, e)
			}
		})
		if len(fs) == 1 {
			lr.sel = fs[0]
			lr.sel.all = true
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return lr, nil
}

// flagLinkRule is the link rule of --links and its filter flags.
func flagLinkRule(ex *LinkExtractor) *linkRule {
	return &linkRule{byKind: true, name: "--links", match: matcher{format: rules.HTML, anyFormat: true}, ex: ex, denyExt: policy.DefaultExtensions, step: rules.DefaultPriorityStep}
}

// links returns the URLs rule r wants followed from page p: its links,
// then, with requests, what the page asked for.
func (r *linkRule) links(p *page, out []candidate, st *LinkStats) ([]candidate, error) {
	out, err := r.pageLinks(p, out, st)
	if r.requests {
		out = r.requestLinks(p, out, st)
	}
	return out, err
}

// pageLinks returns the URLs rule r finds in page p.
func (r *linkRule) pageLinks(p *page, out []candidate, st *LinkStats) ([]candidate, error) {
	if r.ex.Kinds != 0 {
		return r.kindLinks(p, out, st)
	}
	add := func(s string, u *url.URL, l *linkfind.Link) {
		c := candidate{url: s, u: u, rule: r, denyExt: r.denyExt, ownExt: r.ownExt, kind: linkfind.Navigation, source: sourceSelect}
		if l != nil {
			c.kind, c.source = l.Kind, l.Source
		}
		out = append(out, c)
	}
	if r.sel == nil {
		pctx := &process.Context{Base: p.base}
		s, err := r.ex.eachHref(p.html(), pctx, newSeenLinks(r.ex.KeepDuplicates), add)
		st.add(s)
		return out, err
	}
	// select: the values are URLs, relative to the page.
	base := p.base()
	seen := map[string]bool{}
	pctx := &process.Context{Base: p.base}
	var vals []process.Value
	err := r.sel.src.values(p, nil, func(v process.Value) bool {
		if !v.Blank() && v.Kind == process.String {
			vals = append(vals, process.Str(strings.TrimSpace(v.Text)))
		}
		return true
	})
	if len(r.sel.chain) > 0 {
		vals = r.sel.chain.Apply(pctx, vals, nil)
	}
	for _, v := range vals {
		u, rerr := ResolveLink(base, v.Text)
		if rerr != nil {
			if rerr != errNotFollowed {
				st.Invalid++
			}
			continue
		}
		if r.ex.Canonicalize {
			canonicalizeURL(u)
		}
		s := u.String()
		if !r.ex.KeepDuplicates {
			if seen[s] {
				continue
			}
			seen[s] = true
		}
		switch {
		case len(s) > r.ex.MaxURLLength && r.ex.MaxURLLength > 0:
			st.TooLong++
		case !r.ex.allowed(s, u.Hostname()):
			st.Denied++
		default:
			add(s, u, nil)
		}
	}
	return out, err
}

// kindLinks returns the links of the kinds of rule r: those of the
// response's headers, then those of the page (HTML), or of the stylesheet
// (a text/css response). Resources and scripts are not held to Scrapy's
// IGNORED_EXTENSIONS (images, stylesheets and scripts are what they are)
// unless the rule has its own deny_extensions.
func (r *linkRule) kindLinks(p *page, out []candidate, st *LinkStats) ([]candidate, error) {
	seen := newSeenLinks(r.ex.KeepDuplicates)
	pctx := &process.Context{Base: p.base}
	add := func(s string, u *url.URL, l *linkfind.Link) {
		c := candidate{url: s, u: u, rule: r, denyExt: r.denyExt, ownExt: r.ownExt, kind: l.Kind, source: l.Source}
		if l.Method != "" {
			c.post = &formPost{method: l.Method, body: l.Body}
		}
		if !r.ownExt && l.Kind&(linkfind.Resources|linkfind.Scripts) != 0 {
			c.denyExt, c.ownExt = nil, true
		}
		out = append(out, c)
	}
	pageURL, _ := url.Parse(p.url)
	if pageURL != nil && !pageURL.IsAbs() {
		pageURL = nil
	}
	var hst LinkStats
	linkfind.Headers(p.resp.Headers, pageURL, r.ex.Kinds, func(l linkfind.Link) { r.ex.found(&l, pctx, seen, &hst, add) })
	st.add(hst)
	if p.isCSS() {
		var cst LinkStats
		if r.ex.Kinds&linkfind.Resources != 0 {
			linkfind.Stylesheet(p.body.whole(), pageURL, func(l linkfind.Link) { r.ex.found(&l, pctx, seen, &cst, add) })
		}
		st.add(cst)
		return out, nil
	}
	s, err := r.ex.eachKind(p.html(), pageURL, pctx, seen, add)
	st.add(s)
	return out, err
}

func (s *LinkStats) add(o LinkStats) {
	s.Denied += o.Denied
	s.Invalid += o.Invalid
	s.TooLong += o.TooLong
	s.Nofollow += o.Nofollow
}

// ruleDomains compiles a link rule's allow_domains or deny_domains,
// reporting each entry that is not a domain name.
func ruleDomains(list []rules.String, fail func(rules.Pos, error)) policy.Domains {
	var names []string
	for _, d := range list {
		if _, err := policy.NormalizeDomain(d.Value); err != nil {
			fail(d.Pos, err)
			continue
		}
		names = append(names, d.Value)
	}
	domains, _ := policy.NewDomains(names)
	return domains
}

// refusal returns the reason the crawl policy of the page's request (its
// Rules) refuses candidate c at depth, or "". Its extension is held to the
// link rule's deny_extensions (Scrapy's default list when the rule has
// none) and to the request's own, when it has one.
func refusal(r *policy.Rules, c *candidate, depth int) string {
	if reason, _ := r.Depth(depth); reason != "" {
		return reason
	}
	if reason, _ := r.Offsite(c.u.Hostname()); reason != "" {
		return reason
	}
	reason, _ := r.Links(c.url, c.u.Path, c.denyExt, r.OwnExtensions())
	return reason
}
