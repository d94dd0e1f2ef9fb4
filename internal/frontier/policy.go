package frontier

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/percent"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// ReasonInvalid is the reason Check refuses a request that fails the
// crawl-request schema. The crawl policy's reasons are package policy's.
const ReasonInvalid = "invalid"

// Policy applies the crawl rules a request carries (Scrapy Cluster's crawl
// request fields, inherited by every follow-up request). The zero value
// checks requests outside crawl mode. A Policy is safe for concurrent use.
//
// Rules, in order (the first that fails is the reason):
//
//  1. the schema (Validate): ReasonInvalid;
//  2. expires passed at now: ReasonExpired;
//  3. maxdepth > 0 and depth > maxdepth: policy.ReasonMaxDepth (maxdepth
//     0, or absent, means no limit, like Scrapy's DEPTH_LIMIT; Scrapy
//     Cluster read 0 as "the seed only");
//  4. for follow-ups only (depth > 0; a seed is what the user asked for),
//     the rest of the crawl policy as policy.Rules checks it:
//     allowed_domains (policy.ReasonOffsite), allow_regex
//     (policy.ReasonNotAllowed), deny_regex (policy.ReasonDenied), and the
//     extension, held to deny_extensions or, when the request has none,
//     policy.IgnoredExtensions, but for a sitemap's entry
//     (policy.FromSitemap) (policy.ReasonExtension). The next hop of a
//     redirect (a request with redirects) is held to allowed_domains only:
//     the others are link rules, and judged the link that led to it.
//
// A request for a file of an item (policy.Exempt) is held to 1 and 2 only.
//
// Regular expressions are Go's RE2 syntax, searched anywhere in the URL
// like Python's re.search; Python-only syntax (look-around,
// backreferences) is refused as invalid.
type Policy struct {
	// CrawlMode requires appid and crawlid, as Scrapy Cluster's
	// crawl-request schema does.
	CrawlMode bool
}

// Check returns "" when req may be queued at now, else the reason it may
// not (ReasonInvalid, ReasonExpired, or one of package policy's).
func (p Policy) Check(req *record.Request, now time.Time) string {
	reason, _ := p.Explain(req, now)
	return reason
}

// Explain is Check with a sentence saying why, for a log line.
func (p Policy) Explain(req *record.Request, now time.Time) (reason, detail string) {
	if err := p.Validate(req); err != nil {
		return ReasonInvalid, err.Error()
	}
	if req.Expires != 0 && req.Expires <= now.Unix() {
		return ReasonExpired, fmt.Sprintf("crawl expired at %s", time.Unix(req.Expires, 0).UTC().Format(time.RFC3339))
	}
	if policy.Exempt(req) {
		return "", "" // a file of an item, not a link
	}
	rules := policy.Compile(req)
	if reason, detail := rules.Depth(req.Depth); reason != "" {
		return reason, detail
	}
	if req.Depth == 0 {
		return "", ""
	}
	if reason, detail := rules.Offsite(hostOf(req.URL)); reason != "" {
		return reason, detail
	}
	if len(req.Redirects) > 0 {
		// The next hop of a redirect cfetch handed back: the link rules
		// judged the link that led here, not where the server sends it (in
		// Scrapy too they belong to the link extractor, not to redirects).
		return "", ""
	}
	path := req.URL
	if u, err := url.Parse(strings.TrimSpace(req.URL)); err == nil {
		path = u.Path
	}
	return rules.Links(req.URL, path, rules.ExtensionsOf(req))
}

// Validate checks req against the crawl-request schema: url an absolute
// http or https URL; in crawl mode appid (3 to 40 characters) and crawlid
// (1 to 40); useragent, when given, 3 to 1000 characters; depth, maxdepth,
// retries and expires not negative; allowed_domains domain names
// (policy.NormalizeDomain: not empty, no scheme, port or path);
// allow_regex and deny_regex valid RE2; attrs a JSON object. Field types
// were already checked by record.Decode. Scrapy Cluster's narrower ranges
// for priority (1–100) and maxdepth (0–3) are not applied: here priority is
// any integer and maxdepth any depth.
func (p Policy) Validate(req *record.Request) error {
	if err := record.CheckURL(req); err != nil {
		return err
	}
	u, err := percent.ParseURL(strings.TrimSpace(req.URL)) // "/sale-50%-off" as cfetch sends it
	if err != nil {
		return fmt.Errorf("url: %v", strings.TrimPrefix(err.Error(), "parse "))
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		if s == "" {
			return fmt.Errorf("url: %q is not absolute (no scheme)", req.URL)
		}
		return fmt.Errorf("url: scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("url: %q has no host", req.URL)
	}
	if p.CrawlMode {
		if err := length("appid", req.AppID, 3, 40); err != nil {
			return err
		}
		if err := length("crawlid", req.CrawlID, 1, 40); err != nil {
			return err
		}
	}
	if req.UserAgent != "" {
		if err := length("useragent", req.UserAgent, 3, 1000); err != nil {
			return err
		}
		if !httpguts.ValidHeaderFieldValue(req.UserAgent) {
			return fmt.Errorf("useragent: %q has control characters", req.UserAgent)
		}
	}
	// What the fetcher could not send is refused here, not handed out:
	// a request no fetcher can send would never be settled.
	if req.Method != "" && !httpguts.ValidHeaderFieldName(req.Method) {
		return fmt.Errorf("method: %q is not an HTTP method (a token: letters, digits, !#$%%&'*+-.^_`|~)", req.Method)
	}
	for name, v := range req.Headers {
		if !httpguts.ValidHeaderFieldName(name) {
			return fmt.Errorf("headers: invalid header name %q", name)
		}
		if !httpguts.ValidHeaderFieldValue(v) {
			return fmt.Errorf("headers: %q: invalid value %q (control characters are not allowed)", name, v)
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"depth", int64(req.Depth)}, {"maxdepth", int64(req.MaxDepth)}, {"retries", int64(req.Retries)}, {"expires", req.Expires}} {
		if f.v < 0 {
			return fmt.Errorf("%s: must not be negative, got %d", f.name, f.v)
		}
	}
	for i, d := range req.AllowedDomains {
		if strings.TrimSpace(d) == "" {
			return fmt.Errorf("allowed_domains[%d]: empty", i)
		}
		if _, err := policy.NormalizeDomain(d); err != nil {
			return fmt.Errorf("allowed_domains[%d]: %v", i, err)
		}
	}
	for _, f := range []struct {
		name string
		pats []string
	}{{"allow_regex", req.AllowRegex}, {"deny_regex", req.DenyRegex}} {
		for i, pat := range f.pats {
			if _, err := policy.Regexp(pat); err != nil {
				return fmt.Errorf("%s[%d]: %v", f.name, i, err)
			}
		}
	}
	if len(req.Attrs) > 0 {
		var obj map[string]json.RawMessage
		if json.Unmarshal(req.Attrs, &obj) != nil || obj == nil {
			return errors.New("attrs: must be a JSON object")
		}
	}
	return nil
}

func length(field, s string, min, max int) error {
	n := len([]rune(s))
	switch {
	case n == 0:
		return fmt.Errorf("%s: required in crawl mode", field)
	case n < min || n > max:
		return fmt.Errorf("%s: %d characters, want %d to %d", field, n, min, max)
	}
	return nil
}

// hostOf is the request's host as the frontier queues it.
func hostOf(rawURL string) string {
	if c, err := fingerprint.Identity(rawURL); err == nil {
		return fingerprint.Host(c)
	}
	return fingerprint.Host(strings.ToLower(rawURL))
}
