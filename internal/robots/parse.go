package robots

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Rules is the part of one robots.txt that applies to one crawler: the
// rules of its group (see the package comment), its Crawl-delay, and the
// file's Sitemap lines. A nil or zero Rules allows everything. A Rules is
// not changed after Parse, so it is safe for concurrent use.
type Rules struct {
	rules        []rule // most specific first: longest, Allow before Disallow
	crawlDelay   time.Duration
	requestEvery time.Duration // the Request-rate, as the time between two requests
	sitemaps     []string
}

// rule is one Allow or Disallow line of the group.
type rule struct {
	pattern string // percent-normalized (normalizePattern); its length ranks it
	allow   bool
}

// MaxDelay bounds the Crawl-delay and the Request-rate read (1,000,000 s,
// 11.6 days); a larger delay is not one anyone means, and is skipped.
const MaxDelay = 1e6 * time.Second

// Parse reads a robots.txt body for the crawler whose product token is
// agent (letters, digits, '_' and '-', in any case: "crawlutils"). It
// never fails: a line it cannot read is skipped, and a body with no rules
// for agent allows everything. The caller bounds the body (RFC 9309 §2.5:
// parse at least the first 500 KiB).
func Parse(body []byte, agent string) *Rules {
	p := parser{agent: strings.ToLower(agent)}
	EachLine(body, p.line)
	return p.result()
}

// CrawlDelay is the crawler's Crawl-delay, 0 when the file sets none.
// Crawl-delay is no part of RFC 9309; it is read as crawlers that obey it
// read it: a Crawl-delay line applies to the User-agent lines right above
// it (of our product token, or else of "*"), the largest when several do.
// It does not end their group (RFC 9309 §2.2.4).
func (r *Rules) CrawlDelay() time.Duration {
	if r == nil {
		return 0
	}
	return r.crawlDelay
}

// RequestInterval is the time between two requests the crawler's
// Request-rate asks for (n/period: period/n; "1/5", "3/1m", "100/1h",
// with an optional time window after it that is not read), 0 when the
// file sets none. It is read as Crawl-delay is (see CrawlDelay), and is no
// part of RFC 9309 either.
func (r *Rules) RequestInterval() time.Duration {
	if r == nil {
		return 0
	}
	return r.requestEvery
}

// Sitemaps returns the URLs of the file's Sitemap lines, in order, whatever
// group they stand in. The slice is the caller's.
func (r *Rules) Sitemaps() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.sitemaps)
}

// group is one group of the file, as far as it matters to our agent.
type group struct {
	mine, star bool   // a User-agent line names our product token; "*"
	rules      []rule // kept only when mine or star
}

// parser reads the lines EachLine gives it into groups.
type parser struct {
	agent    string // lower-case product token
	groups   []*group
	cur      *group // the group being read; nil before the first User-agent
	inAgents bool   // no rule since cur's first User-agent: another one joins cur
	sitemaps []string

	// The Crawl-delays and Request-rates: the run of User-agent lines the
	// next one applies to (runMine, runStar), whether one came since that
	// run (delayed), and the largest of each for our token and for "*".
	runMine, runStar     bool
	delayed              bool
	mineDelay, starDelay time.Duration
	mineEvery, starEvery time.Duration
}

func (p *parser) line(key, val string) {
	switch key {
	case "user-agent":
		if !p.inAgents || p.delayed {
			p.runMine, p.runStar, p.delayed = false, false, false
		}
		if !p.inAgents {
			p.cur = &group{}
			p.groups = append(p.groups, p.cur)
			p.inAgents = true
		}
		switch {
		case isStar(val):
			p.cur.star, p.runStar = true, true
		case p.agent != "" && ProductToken(val) == p.agent:
			p.cur.mine, p.runMine = true, true
		}
	case "allow", "disallow":
		if p.cur == nil {
			return // before any group: no crawler's rule (RFC 9309 §2.1)
		}
		p.inAgents = false
		if !p.cur.mine && !p.cur.star {
			return
		}
		if pat := rulePattern(val); pat != "" {
			p.cur.rules = append(p.cur.rules, rule{pattern: pat, allow: key == "allow"})
		}
	case "crawl-delay", "crawldelay", "request-rate", "requestrate":
		if p.cur == nil {
			return
		}
		parse, mine, star := parseCrawlDelay, &p.mineDelay, &p.starDelay
		if key[0] == 'r' {
			parse, mine, star = parseRequestRate, &p.mineEvery, &p.starEvery
		}
		if d, ok := parse(val); ok {
			if p.runMine {
				*mine = max(*mine, d)
			}
			if p.runStar {
				*star = max(*star, d)
			}
			p.delayed = true
		}
	case "sitemap":
		if v, ok := sitemapURL(val); ok {
			p.sitemaps = append(p.sitemaps, v)
		}
	}
}

// Sitemaps returns the URLs of the Sitemap lines of a robots.txt body, in
// order, as Rules.Sitemaps does, without reading its groups: the field
// name in any case, comments removed, each value's first field (RFC 9309
// §2.1: no white space in a value; "Sitemap: URL extra" names URL), a
// value with control characters skipped. A URL is as written: relative
// ones are the caller's to resolve.
func Sitemaps(body []byte) []string {
	var out []string
	EachLine(body, func(key, val string) {
		if v, ok := sitemapURL(val); key == "sitemap" && ok {
			out = append(out, v)
		}
	})
	return out
}

// sitemapURL is the URL of a Sitemap line's value: its first field,
// unless it is empty or holds control characters.
func sitemapURL(val string) (string, bool) {
	v := firstField(val)
	return v, v != "" && printable(v)
}

// result merges the groups of our agent, or else the "*" groups, and
// orders their rules so that the first that matches decides.
func (p *parser) result() *Rules {
	r := &Rules{sitemaps: p.sitemaps, crawlDelay: p.starDelay, requestEvery: p.starEvery}
	mine := slices.ContainsFunc(p.groups, func(g *group) bool { return g.mine })
	if mine {
		r.crawlDelay, r.requestEvery = p.mineDelay, p.mineEvery
	}
	for _, g := range p.groups {
		if mine && g.mine || !mine && g.star {
			r.rules = append(r.rules, g.rules...)
		}
	}
	slices.SortStableFunc(r.rules, func(a, b rule) int {
		if c := cmp.Compare(len(b.pattern), len(a.pattern)); c != 0 {
			return c
		}
		switch {
		case a.allow == b.allow:
			return 0
		case a.allow:
			return -1
		}
		return 1
	})
	return r
}

// isStar reports whether a User-agent value is "*" (maybe followed by
// white space and junk, as in "* # all").
func isStar(v string) bool {
	return v == "*" || len(v) > 1 && v[0] == '*' && (v[1] == ' ' || v[1] == '\t')
}

// rulePattern is the pattern of an Allow or Disallow value: its first
// field (RFC 9309 §2.1: a path pattern holds no white space), with a
// leading '/' added when it starts with neither '/' nor '*', percent-
// normalized. "" for an empty value, a rule that matches nothing.
func rulePattern(v string) string {
	v = firstField(v)
	if v == "" {
		return ""
	}
	if v[0] != '/' && v[0] != '*' {
		v = "/" + v
	}
	return normalizePattern(v)
}

// parseCrawlDelay reads a Crawl-delay value: seconds, maybe fractional.
func parseCrawlDelay(v string) (time.Duration, bool) {
	d, err := strconv.ParseFloat(firstField(v), 64)
	if err != nil || !(d >= 0 && d <= MaxDelay.Seconds()) { // NaN fails both
		return 0, false
	}
	return time.Duration(d * float64(time.Second)), true
}

// parseRequestRate reads a Request-rate value, n/period, as the time
// between two requests: "1/5" (seconds), "1/5s", "3/1m", "100/1h"; what
// follows the first field (a time window, "0600-0845") is not read.
func parseRequestRate(v string) (time.Duration, bool) {
	n, period, ok := strings.Cut(firstField(v), "/")
	if !ok {
		return 0, false
	}
	count, err := strconv.ParseFloat(n, 64)
	if err != nil || !(count > 0 && count <= MaxDelay.Seconds()) { // NaN, Inf fail
		return 0, false
	}
	unit := time.Second
	switch {
	case strings.HasSuffix(period, "s"):
		period = strings.TrimSuffix(period, "s")
	case strings.HasSuffix(period, "m"):
		period, unit = strings.TrimSuffix(period, "m"), time.Minute
	case strings.HasSuffix(period, "h"):
		period, unit = strings.TrimSuffix(period, "h"), time.Hour
	}
	p, err := strconv.ParseFloat(period, 64)
	if err != nil || !(p >= 0) {
		return 0, false
	}
	d := p * float64(unit) / count
	if !(d <= float64(MaxDelay)) {
		return 0, false
	}
	return time.Duration(d), true
}

// firstField is v up to its first white space.
func firstField(v string) string {
	if i := strings.IndexAny(v, " \t\v\f"); i >= 0 {
		return v[:i]
	}
	return v
}

// printable reports whether s holds no control characters or spaces.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] == 0x7f {
			return false
		}
	}
	return true
}
