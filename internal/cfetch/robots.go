package cfetch

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/crawlutils/crawlutils/internal/robots"
)

// robotsRules is the part of one robots.txt that applies to cfetch: the
// group of our product token (or "*"), parsed by temoto/robotstxt from a
// canonical rewrite of the file (canonicalRobots) that makes it follow
// RFC 9309 where the library does not.
type robotsRules struct {
	group      *robotstxt.Group
	crawlDelay time.Duration
	sitemaps   []string
}

// Sentinels of the canonical rewrite. Neither can appear in a normalized
// path (control characters are percent-encoded by normalizeRobotsPath).
const (
	// robotsAnchor starts every rule path and every path tested, so that
	// the library's unanchored wildcard patterns match only at the start,
	// and so that the library's special case for the rule "/" (weakest
	// match, first one wins) never applies.
	robotsAnchor = "/\x01"
	// robotsNever is the path of a rule that never matches: it stands in
	// for an empty "Disallow:" so that the group still counts as having
	// rules (the library would otherwise merge it with the next group).
	robotsNever = "/\x02"
	// agentEnd ends every user-agent token, so that the library's prefix
	// match on agents becomes an exact match (RFC 9309 §2.2.1).
	agentEnd = "\x01"
	// agentNever stands in for a User-agent value that is no product token.
	agentNever = "\x02"
)

// parseRobots parses a robots.txt body for agent (a lower-case product
// token). It never fails: lines that cannot be parsed are skipped, as
// RFC 9309 asks; a body with no rules (an HTML page, say) allows all.
func parseRobots(body []byte, agent string) *robotsRules {
	data, err := robotstxt.FromBytes(canonicalRobots(body))
	if err != nil {
		// canonicalRobots only writes what the parser accepts; keep the
		// promise of never failing anyway.
		return &robotsRules{}
	}
	r := &robotsRules{group: data.FindGroup(agent + agentEnd), sitemaps: data.Sitemaps}
	r.crawlDelay = r.group.CrawlDelay
	return r
}

// allowed reports whether u may be fetched. A nil *robotsRules allows all.
func (r *robotsRules) allowed(u *url.URL) bool {
	if r == nil || r.group == nil {
		return true
	}
	return r.group.Test(robotsTarget(u))
}

// robotsTarget is the string a URL is matched as: the anchor, then its
// normalized path and query.
func robotsTarget(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	var b strings.Builder
	b.Grow(len(robotsAnchor) + len(p) + len(u.RawQuery) + 1)
	b.WriteString(robotsAnchor)
	b.WriteString(normalizeRobotsPath(p))
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteByte('?')
		b.WriteString(normalizeRobotsPath(u.RawQuery))
	}
	return b.String()
}

// canonicalRobots rewrites a robots.txt into lines temoto/robotstxt
// parses without error and interprets as RFC 9309 says:
//
//   - unknown lines, comments, and rules or Crawl-delays before the first
//     User-agent are dropped; an invalid Crawl-delay is dropped;
//   - User-agent values become their product token, lower-cased, ending
//     in agentEnd (exact match);
//   - rule paths are percent-normalized, start with robotsAnchor, and in
//     each run of rules Allow lines come first, so that an Allow and a
//     Disallow of equal length resolve to Allow (the library keeps the
//     first of equally long matches);
//   - an empty Disallow or Allow becomes a rule that never matches.
func canonicalRobots(body []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(body) + 64)
	var allows, others []string // the current run of group lines
	flush := func() {
		for _, l := range allows {
			out.WriteString(l)
		}
		for _, l := range others {
			out.WriteString(l)
		}
		allows, others = allows[:0], others[:0]
	}
	inGroup := false
	robots.EachLine(body, func(key, val string) {
		switch key {
		case "user-agent", "useragent":
			flush()
			inGroup = true
			out.WriteString("user-agent: " + agentValue(val) + "\n")
		case "allow", "disallow":
			if !inGroup {
				return
			}
			l := key + ": " + rulePath(val) + "\n"
			if key == "allow" {
				allows = append(allows, l)
			} else {
				others = append(others, l)
			}
		case "crawl-delay", "crawldelay":
			if !inGroup {
				return
			}
			f := firstField(val)
			if d, err := strconv.ParseFloat(f, 64); err == nil && d >= 0 && d <= 1e6 {
				others = append(others, "crawl-delay: "+strconv.FormatFloat(d, 'f', -1, 64)+"\n")
			}
		case "sitemap":
			if f := firstField(val); f != "" && validPathChars(f) {
				out.WriteString("sitemap: " + f + "\n")
			}
		}
	})
	flush()
	return out.Bytes()
}

// agentValue is the canonical form of a User-agent value: "*", or the
// product token (letters, digits, '_' and '-') lower-cased with agentEnd.
func agentValue(v string) string {
	if strings.HasPrefix(v, "*") {
		return "*"
	}
	tok := productToken(v)
	if tok == "" {
		return agentNever
	}
	return tok + agentEnd
}

// productToken returns the leading product token of a User-Agent string,
// lower-cased: "crawlutils" for "crawlutils/1.0 (+https://…)".
func productToken(ua string) string {
	ua = strings.TrimSpace(ua)
	n := 0
	for n < len(ua) && isTokenChar(ua[n]) {
		n++
	}
	return strings.ToLower(ua[:n])
}

func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// validToken reports whether s is a product token.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTokenChar(s[i]) {
			return false
		}
	}
	return true
}

// rulePath is the canonical form of an Allow or Disallow value.
func rulePath(v string) string {
	v = firstField(v)
	if v == "" {
		return robotsNever
	}
	if v[0] != '/' && v[0] != '*' {
		v = "/" + v
	}
	return robotsAnchor + normalizeRobotsPath(v)
}

// firstField is v up to its first white space (the library splits values
// on spaces; RFC 9309 paths have none).
func firstField(v string) string {
	if i := strings.IndexAny(v, " \t\v\f"); i >= 0 {
		return v[:i]
	}
	return v
}

// validPathChars reports whether the parser's tokenizer keeps s whole.
func validPathChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] == 0x7f {
			return false
		}
	}
	return true
}

const upperHex = "0123456789ABCDEF"

// normalizeRobotsPath percent-normalizes a path or query, so that rules
// and URLs compare as RFC 9309 §2.2.2 says: octets outside printable
// US-ASCII are percent-encoded, percent-escapes use upper-case hex, and an
// escaped unreserved character (ALPHA, DIGIT, "-", ".", "_", "~") is
// decoded. "*" and "$" are kept as they are.
func normalizeRobotsPath(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c < 0x21 || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[v>>4])
				b.WriteByte(upperHex[v&15])
			}
			i += 2
		case c < 0x21 || c >= 0x7f || c == '%':
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
