package cextract

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/cextract/sitemap"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/robots"
)

// sitemapRule reads robots.txt and sitemaps: Scrapy's SitemapSpider.
type sitemapRule struct {
	name          string
	pos           rules.Pos
	url, notURL   []*regexp.Regexp
	byDefault     bool // no match.url: also every response requested as a sitemap
	follow        []*regexp.Regexp
	allow, deny   []*regexp.Regexp
	alternate     bool
	after, before time.Time
	rule          *linkRule // for priorities
}

// tightGCFrom is the size of a sitemap from which it is read with the
// garbage collector tight (cli.TightGC): about 80,000 URLs.
const tightGCFrom = 8 << 20

// defaultSitemapURL is what a sitemap rule without match.url reads.
var defaultSitemapURL = regexp.MustCompile(`(?i)/robots\.txt$|sitemap[^/]*\.(xml|txt)(\.gz)?$`)

func compileSitemapRule(r *rules.Sitemap) *sitemapRule {
	s := &sitemapRule{name: r.Name, pos: r.Pos, url: r.Match.URL, notURL: r.Match.NotURL, follow: r.Follow,
		allow: r.Allow, deny: r.Deny, alternate: r.Alternate}
	if s.url == nil {
		s.url, s.byDefault = []*regexp.Regexp{defaultSitemapURL}, true
	}
	if t, ok := process.ParseDate(r.LastmodAfter.Value); ok {
		s.after = t
	}
	if t, ok := process.ParseDate(r.LastmodBefore.Value); ok {
		s.before = t
	}
	s.rule = &linkRule{name: r.Name, pos: r.Pos, step: rules.DefaultPriorityStep, denyExt: map[string]bool{}}
	return s
}

func (s *sitemapRule) matches(p *page) (bool, string) {
	if !anyMatch(s.url, p.url) && !(s.byDefault && requestedAsSitemap(p.req)) {
		if s.byDefault {
			return false, "the URL is not a robots.txt or a sitemap's (no match.url: /robots.txt, *sitemap*.xml(.gz), *sitemap*.txt, or a sitemap a robots.txt or an index listed)"
		}
		return false, "the URL matches no match.url"
	}
	for _, re := range s.notURL {
		if re.MatchString(p.url) {
			return false, fmt.Sprintf("the URL matches match.not_url %q", re.String())
		}
	}
	return true, ""
}

// requestedAsSitemap says whether req is a sitemap a robots.txt or a
// sitemap index listed, by the source cextract gave it: whatever its URL,
// it is read as a sitemap, as Scrapy's SitemapSpider reads them.
func requestedAsSitemap(req *record.Request) bool {
	if req == nil {
		return false
	}
	var src string
	if raw := req.Extra["source"]; len(raw) == 0 || json.Unmarshal(raw, &src) != nil {
		return false
	}
	return src == sourceRobotsSitemap || src == sourceSitemapIndex
}

// sitemapResult counts what a sitemap rule did with one response.
type sitemapResult struct {
	kind     string // "robots.txt", "urlset", "sitemapindex", "text", "rss", "atom", "not a sitemap"
	entries  int
	filtered int // URLs left out by follow, allow, deny or lastmod
	err      error
}

// links gives emit the URLs of a robots.txt (its sitemaps) or of a
// sitemap (its pages, or for an index its sitemaps), as they are read.
func (s *sitemapRule) links(p *page, emit func(candidate), st *LinkStats) sitemapResult {
	var res sitemapResult
	base, _ := url.Parse(p.url)
	add := func(loc, source string) {
		u, err := ResolveLink(base, loc)
		if err != nil {
			st.Invalid++
			return
		}
		emit(candidate{url: u.String(), u: u, rule: s.rule, kind: linkfind.Navigation, source: source})
	}
	if u, err := url.Parse(p.url); err == nil && strings.EqualFold(u.Path, "/robots.txt") {
		res.kind = "robots.txt"
		locs := robots.Sitemaps([]byte(p.body.whole()))
		res.entries = len(locs)
		for _, loc := range locs {
			add(loc, sourceRobotsSitemap)
		}
		return res
	}
	// The body is read as a stream, not decoded whole (a sitemap is up to
	// 50 MiB), and entries are taken as they are parsed, not gathered
	// first. Parsing a large one makes much garbage while little is live
	// besides the record line and the hashes of the URLs, which hold no
	// pointers: collecting it often costs little.
	if p.body.len() >= tightGCFrom {
		defer cli.TightGC()()
	}
	kind, err := sitemap.EachFrom(p.body.open(), int64(p.body.len()), func(kind sitemap.Kind, e sitemap.Entry) {
		res.entries++
		if kind == sitemap.Index {
			if len(s.follow) > 0 && !anyMatch(s.follow, e.Loc) {
				res.filtered++
				return
			}
			add(e.Loc, sourceSitemapIndex)
			return
		}
		if !s.lastmodOK(e.Lastmod) {
			res.filtered++
			return
		}
		if s.allowed(e.Loc, &res) {
			add(e.Loc, sourceSitemapURL)
		}
		if s.alternate {
			for _, loc := range e.Alternates {
				if s.allowed(loc, &res) {
					add(loc, sourceSitemapAlternate)
				}
			}
		}
	})
	res.kind, res.err = kind.String(), err
	return res
}

// allowed applies allow and deny to a page's URL, counting what they leave
// out.
func (s *sitemapRule) allowed(loc string, res *sitemapResult) bool {
	if len(s.allow) > 0 && !anyMatch(s.allow, loc) || anyMatch(s.deny, loc) {
		res.filtered++
		return false
	}
	return true
}

// lastmodOK applies lastmod_after and lastmod_before. An entry without a
// lastmod, or with one that does not parse, is kept.
func (s *sitemapRule) lastmodOK(lastmod string) bool {
	if s.after.IsZero() && s.before.IsZero() || lastmod == "" {
		return true
	}
	t, ok := process.ParseDate(lastmod)
	if !ok {
		return true
	}
	if !s.after.IsZero() && t.Before(s.after) {
		return false
	}
	return s.before.IsZero() || t.Before(s.before)
}
