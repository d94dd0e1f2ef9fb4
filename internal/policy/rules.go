package policy

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/crawlutils/crawlutils/internal/record"
)

// Rules is the crawl policy a request carries, compiled: Scrapy Cluster's
// crawl-request fields maxdepth, allowed_domains, allow_regex, deny_regex
// and deny_extensions, which every follow-up inherits. A Rules is
// immutable and safe for concurrent use.
//
// The checks, in the order Check makes them (the first that fails is the
// reason):
//
//  1. maxdepth > 0 and depth > maxdepth: ReasonMaxDepth (0: no limit, as
//     Scrapy's DEPTH_LIMIT);
//  2. allowed_domains given and the host none of them nor a subdomain
//     (Domains): ReasonOffsite;
//  3. allow_regex given and none matches the URL: ReasonNotAllowed;
//  4. one of deny_regex matches the URL: ReasonDenied;
//  5. the URL's path has an extension in one of the sets Check is given
//     (Extensions): ReasonExtension.
//
// Regular expressions are Go's RE2, searched anywhere in the URL as
// Python's re.search does. Entries that do not compile (a domain that is
// not a domain name, a bad regular expression) are ignored and listed in
// Bad.
type Rules struct {
	maxDepth   int
	domains    Domains
	hasDomains bool
	allow      []*regexp.Regexp
	deny       []*regexp.Regexp
	denySrc    []string
	own        Extensions // the request's deny_extensions; nil when absent
	// Bad lists the entries ignored because they do not compile, each
	// as "field value" ("allow_regex (x").
	Bad []string
}

// Compile returns the Rules of req's crawl policy fields. Requests with
// the same fields share one Rules (a bounded cache).
func Compile(req *record.Request) *Rules {
	if req.MaxDepth == 0 && req.AllowedDomains == nil && req.AllowRegex == nil && req.DenyRegex == nil && req.DenyExtensions == nil {
		return &noRules
	}
	key := rulesKey(req)
	rulesMu.Lock()
	r, ok := rulesCache[key]
	rulesMu.Unlock()
	if ok {
		return r
	}
	r = compileRules(req)
	rulesMu.Lock()
	if len(rulesCache) >= rulesCacheMax {
		clear(rulesCache)
	}
	rulesCache[key] = r
	rulesMu.Unlock()
	return r
}

var (
	noRules    Rules
	rulesMu    sync.Mutex
	rulesCache = map[string]*Rules{}
)

const rulesCacheMax = 1024

func rulesKey(req *record.Request) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(req.MaxDepth))
	for i, list := range [][]string{req.AllowedDomains, req.AllowRegex, req.DenyRegex, req.DenyExtensions} {
		b.WriteByte(0)
		if list == nil {
			b.WriteByte('-') // absent, as opposed to []
		}
		for _, s := range list {
			b.WriteByte(byte('a' + i))
			b.WriteString(strconv.Itoa(len(s)))
			b.WriteByte(':')
			b.WriteString(s)
		}
	}
	return b.String()
}

func compileRules(req *record.Request) *Rules {
	r := &Rules{maxDepth: req.MaxDepth}
	if len(req.AllowedDomains) > 0 {
		var bad []string
		r.domains, bad = NewDomains(req.AllowedDomains)
		r.hasDomains = !r.domains.Empty()
		for _, d := range bad {
			r.Bad = append(r.Bad, "allowed_domains "+d)
		}
	}
	for _, pat := range req.AllowRegex {
		if re, err := Regexp(pat); err == nil {
			r.allow = append(r.allow, re)
		} else {
			r.Bad = append(r.Bad, "allow_regex "+pat)
		}
	}
	for _, pat := range req.DenyRegex {
		if re, err := Regexp(pat); err == nil {
			r.deny, r.denySrc = append(r.deny, re), append(r.denySrc, pat)
		} else {
			r.Bad = append(r.Bad, "deny_regex "+pat)
		}
	}
	if req.DenyExtensions != nil {
		r.own = NewExtensions(req.DenyExtensions)
	}
	return r
}

// OwnExtensions is the request's deny_extensions, nil when it has none
// (and empty, denying none, for []).
func (r *Rules) OwnExtensions() Extensions { return r.own }

// Extensions is the set a request's own URL is held to: its
// deny_extensions, or DefaultExtensions when it has none.
func (r *Rules) Extensions() Extensions {
	if r.own == nil {
		return DefaultExtensions
	}
	return r.own
}

// Check returns the reason the policy refuses u at depth, with a sentence
// saying why, or "", "" (see Rules for the order). Its extension is held
// to every set in exts.
func (r *Rules) Check(u *url.URL, depth int, exts ...Extensions) (reason, detail string) {
	if reason, detail = r.Depth(depth); reason != "" {
		return reason, detail
	}
	if reason, detail = r.Offsite(u.Hostname()); reason != "" {
		return reason, detail
	}
	return r.Links(u.String(), u.Path, exts...)
}

// Depth is the maxdepth check of Check.
func (r *Rules) Depth(depth int) (reason, detail string) {
	if r.maxDepth > 0 && depth > r.maxDepth {
		return ReasonMaxDepth, fmt.Sprintf("depth %d > maxdepth %d", depth, r.maxDepth)
	}
	return "", ""
}

// Offsite is the allowed_domains check of Check, for a host name.
func (r *Rules) Offsite(host string) (reason, detail string) {
	if r.hasDomains && !r.domains.Match(host) {
		return ReasonOffsite, fmt.Sprintf("host %s is not in allowed_domains", host)
	}
	return "", ""
}

// Links is the rest of Check, for the URL rawURL whose path is path: the
// link rules allow_regex, deny_regex and the extension sets exts.
func (r *Rules) Links(rawURL, path string, exts ...Extensions) (reason, detail string) {
	if len(r.allow) > 0 && !anyMatch(r.allow, rawURL) {
		return ReasonNotAllowed, "URL matches no allow_regex"
	}
	for i, re := range r.deny {
		if re.MatchString(rawURL) {
			return ReasonDenied, fmt.Sprintf("URL matches deny_regex %q", r.denySrc[i])
		}
	}
	for _, e := range exts {
		if ext, ok := e.MatchPath(path); ok {
			return ReasonExtension, fmt.Sprintf("URL ends with .%s", ext)
		}
	}
	return "", ""
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
