package cextract

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/record"
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
	denyExt  map[string]bool
	ownExt   bool // denyExt is the rule's deny_extensions, not Scrapy's default
	priority *int
	step     int
}

// candidate is a URL a rule wants followed, before the crawl policy.
type candidate struct {
	url     string
	u       *url.URL
	rule    *linkRule
	sitemap bool
	denyExt map[string]bool
}

func extensionSet(exts []string) map[string]bool {
	m := make(map[string]bool, len(exts))
	for _, e := range exts {
		e = strings.ToLower(strings.TrimSpace(e))
		if e != "" {
			m["."+strings.TrimPrefix(e, ".")] = true
		}
	}
	return m
}

var defaultDenyExt = extensionSet(rules.IgnoredExtensions)

func compileLinkRule(file string, i int, r *rules.Link) (*linkRule, error) {
	var errs rules.Errors
	what := fmt.Sprintf("link rule %q", r.Name)
	if r.Name == "" {
		what = fmt.Sprintf("link rule %d", i+1)
	}
	fail := func(pos rules.Pos, format string, a ...any) {
		errs = append(errs, rules.Errorf(file, pos, "%s: "+format, append([]any{what}, a...)...))
	}
	lr := &linkRule{name: r.Name, file: file, pos: r.Pos, match: newMatcher(r.Match), priority: r.Priority, step: r.PriorityStep}
	if lr.name == "" {
		lr.name = fmt.Sprintf("#%d", i+1)
	}
	ex := &LinkExtractor{
		Allow: r.Allow, Deny: r.Deny, MaxURLLength: DefaultMaxURLLength, Tags: r.Tags, Attrs: r.Attrs,
		SkipNofollow: r.SkipNofollow, Canonicalize: r.Canonicalize, KeepDuplicates: !r.Unique, Process: r.Process,
	}
	if ex.Tags != nil && ex.Attrs == nil {
		ex.Attrs = defaultAttrs
	}
	if ex.Attrs != nil && ex.Tags == nil {
		ex.Tags = defaultTags
	}
	for _, d := range r.AllowDomains {
		n, err := NormalizeDomain(d.Value)
		if err != nil {
			fail(d.Pos, "allow_domains: %v", err)
		}
		ex.AllowDomains = append(ex.AllowDomains, n)
	}
	for _, d := range r.DenyDomains {
		n, err := NormalizeDomain(d.Value)
		if err != nil {
			fail(d.Pos, "deny_domains: %v", err)
		}
		ex.DenyDomains = append(ex.DenyDomains, n)
	}
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
		lr.denyExt = defaultDenyExt
	} else {
		lr.denyExt, lr.ownExt = extensionSet(r.DenyExtensions), true
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
	return &linkRule{name: "--links", match: matcher{format: rules.HTML, anyFormat: true}, ex: ex, denyExt: defaultDenyExt, step: rules.DefaultPriorityStep}
}

// links returns the URLs rule r wants followed from page p.
func (r *linkRule) links(p *page, out []candidate, st *LinkStats) ([]candidate, error) {
	add := func(s string, u *url.URL) {
		out = append(out, candidate{url: s, u: u, rule: r, denyExt: r.denyExt})
	}
	if r.sel == nil {
		pctx := &process.Context{Base: p.base}
		s, err := r.ex.each(p.html(), pctx, add)
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
			add(s, u)
		}
	}
	return out, err
}

func (s *LinkStats) add(o LinkStats) {
	s.Denied += o.Denied
	s.Invalid += o.Invalid
	s.TooLong += o.TooLong
	s.Nofollow += o.Nofollow
}

// policy is the crawl policy of a request (Scrapy Cluster's fields), applied
// to its follow-ups.
type policy struct {
	maxDepth       int
	allowedDomains []string
	allow, deny    []*regexp.Regexp
	denyExt        map[string]bool
	bad            []string // regular expressions that do not compile
}

// policyCache compiles each distinct policy once.
type policyCache struct {
	m map[string]*policy
}

func (c *policyCache) get(req *record.Request) *policy {
	if req.MaxDepth == 0 && len(req.AllowedDomains)+len(req.AllowRegex)+len(req.DenyRegex)+len(req.DenyExtensions) == 0 {
		return nil
	}
	key := fmt.Sprintf("%d\x00%q\x00%q\x00%q\x00%q", req.MaxDepth, req.AllowedDomains, req.AllowRegex, req.DenyRegex, req.DenyExtensions)
	if p, ok := c.m[key]; ok {
		return p
	}
	if c.m == nil || len(c.m) > 1000 {
		c.m = map[string]*policy{}
	}
	p := &policy{maxDepth: req.MaxDepth}
	for _, d := range req.AllowedDomains {
		if n, err := NormalizeDomain(d); err == nil {
			p.allowedDomains = append(p.allowedDomains, n)
		} else {
			p.bad = append(p.bad, "allowed_domains "+d)
		}
	}
	for _, s := range req.AllowRegex {
		if re, err := regexp.Compile(s); err == nil {
			p.allow = append(p.allow, re)
		} else {
			p.bad = append(p.bad, "allow_regex "+s)
		}
	}
	for _, s := range req.DenyRegex {
		if re, err := regexp.Compile(s); err == nil {
			p.deny = append(p.deny, re)
		} else {
			p.bad = append(p.bad, "deny_regex "+s)
		}
	}
	if len(req.DenyExtensions) > 0 {
		p.denyExt = extensionSet(req.DenyExtensions)
	}
	c.m[key] = p
	return p
}

// Reject reasons: why a follow-up request was not written.
const (
	rejectMaxDepth   = "maxdepth"
	rejectDomain     = "allowed_domains"
	rejectAllowRegex = "allow_regex"
	rejectDenyRegex  = "deny_regex"
	rejectExtension  = "deny_extensions"
)

// check returns why the policy refuses c at depth, or "".
func (p *policy) check(c *candidate, depth int) string {
	if p != nil {
		switch {
		case p.maxDepth > 0 && depth > p.maxDepth:
			return rejectMaxDepth
		case len(p.allowedDomains) > 0 && !domainMatch(c.u.Hostname(), p.allowedDomains):
			return rejectDomain
		case len(p.allow) > 0 && !anyMatch(p.allow, c.url):
			return rejectAllowRegex
		case anyMatch(p.deny, c.url):
			return rejectDenyRegex
		}
	}
	if ext := urlExtension(c.u); ext != "" && (c.denyExt[ext] || p != nil && p.denyExt[ext]) {
		return rejectExtension
	}
	return ""
}

// urlExtension is the lower-cased extension of the last path segment,
// with its dot (".pdf"), as Scrapy's url_has_any_extension sees it.
func urlExtension(u *url.URL) string {
	return strings.ToLower(path.Ext(u.Path))
}
