package robots

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/temoto/robotstxt"
)

// FuzzAllowed: any file parses and any URL is matched without a panic,
// and the answers keep what RFC 9309 promises:
//   - the decision is the one the rules define (the longest matching rule,
//     Allow on a tie), found again with a reference matcher (matchesDP)
//     over the rules in any order;
//   - /robots.txt is allowed, whatever the file says;
//   - a path given a plain Allow rule for our agent is allowed unless a
//     longer Disallow rule of the group matches it;
//   - a path given only a plain Disallow rule is denied;
//   - a URL's target is its own rule: normalizing it again changes nothing.
func FuzzAllowed(f *testing.F) {
	for _, s := range []string{
		"User-agent: *\nDisallow: /private/\nAllow: /*.css$\n",
		"User-agent: *\nallow: /x/page.\ndisallow: /*.html\n",
		"User-agent: crawlutils\nAllow: /a$\nDisallow: /*.php\nCrawl-delay: 2.5\n",
		"User-agent: *\nDisallow:\nUser-agent: x\nDisallow: /\nSitemap: http://a/s.xml\n",
		"User-agent: *\nDisallow: /\n",
		"<html><body>Disallow: /</body></html>",
		"\ufeffuser-agent:*\r\ndisallow:/caf%c3%a9\rallow:/%7e",
		"Crawl-delay: 1e400\nUser-agent: *\nCrawl-delay: -1\n",
		"User-agent: *\nDisallow: /*a*a*a*a*b$\nAllow: /a$b*%2A\n",
	} {
		f.Add(s, "/a/b?c=d")
		f.Add(s, "/private/a.css")
	}
	robotsTxt := &url.URL{Scheme: "http", Host: "a.test", Path: "/robots.txt"}
	f.Fuzz(func(t *testing.T, body, path string) {
		r := Parse([]byte(body), "crawlutils")
		if r.RequestInterval() < 0 || r.RequestInterval() > MaxDelay {
			t.Fatalf("request interval %s", r.RequestInterval())
		}
		if r.CrawlDelay() < 0 {
			t.Fatalf("negative crawl delay %s", r.CrawlDelay())
		}
		if !r.Allowed(robotsTxt) {
			t.Fatal("/robots.txt denied")
		}
		u, err := url.Parse("http://a.test/" + strings.TrimPrefix(path, "/"))
		if err != nil {
			return
		}
		got := r.Allowed(u)
		tg := target(u)
		if again := normalizePattern(tg); again != tg {
			t.Fatalf("target %q normalizes again to %q", tg, again)
		}
		if len(body)*len(tg) <= 1<<20 { // the reference is quadratic
			if want := referenceAllows(r.rules, tg); got != want {
				t.Fatalf("%s: allowed %v, the rules say %v", tg, got, want)
			}
		}
		withAllow := Parse([]byte(body+"\nUser-agent: crawlutils\nAllow: "+tg+"\n"), "crawlutils")
		if !withAllow.Allowed(u) && !longerDisallowMatches(withAllow.rules, tg) {
			t.Fatalf("Allow: %s does not allow it, and no longer Disallow matches", tg)
		}
		deny := Parse([]byte("User-agent: crawlutils\nDisallow: "+tg+"\n"), "crawlutils")
		if deny.Allowed(u) != (tg == "/robots.txt") {
			t.Fatalf("Disallow: %s does not deny it", tg)
		}
	})
}

// referenceAllows is the decision of RFC 9309 §2.2.2 for target t, found
// with the reference matcher, the rules taken in any order.
func referenceAllows(rules []rule, t string) bool {
	if t == "/robots.txt" {
		return true
	}
	best, allow := -1, true
	for _, x := range rules {
		if n := len(x.pattern); (n > best || n == best && x.allow) && matchesDP(x.pattern, t) {
			best, allow = n, x.allow
		}
	}
	return allow
}

// longerDisallowMatches reports whether a Disallow rule longer than t
// matches t.
func longerDisallowMatches(rules []rule, t string) bool {
	for _, x := range rules {
		if !x.allow && len(x.pattern) > len(t) && matches(x.pattern, t) {
			return true
		}
	}
	return false
}

// FuzzPrefixRulesAgreeWithTemoto holds the matcher against
// github.com/temoto/robotstxt where that library's answers are RFC 9309's:
// rules without wildcards, Allow lines written before Disallow lines (it
// keeps the first of equally long matches), one "*" group. Each line of
// rules is a rule: Allow when it starts with '+', its path the rest.
func FuzzPrefixRulesAgreeWithTemoto(f *testing.F) {
	f.Add("+/a\n/a/b\n/\n+/a/b/c", "/a/b/x")
	f.Add("/private/\n+/private/a.css", "/private/a.css?x=1")
	f.Add("+/caf%c3%a9\n/café", "/caf%C3%A9")
	f.Add("/\n+/", "/x")
	f.Add("+/a%2fb\n/a/b", "/a%2Fb")
	f.Fuzz(func(t *testing.T, rules, path string) {
		var allows, disallows strings.Builder
		for line := range strings.SplitSeq(rules, "\n") {
			allow := strings.HasPrefix(line, "+")
			p := normalizeTarget("/" + strings.TrimPrefix(strings.TrimPrefix(line, "+"), "/"))
			if strings.Contains(p, "#") {
				continue // a comment to us; part of the token to the library
			}
			if allow {
				allows.WriteString("Allow: " + p + "\n")
			} else {
				disallows.WriteString("Disallow: " + p + "\n")
			}
		}
		body := "User-agent: *\n" + allows.String() + disallows.String()
		theirs, err := robotstxt.FromString(body)
		if err != nil {
			t.Fatalf("temoto/robotstxt refuses %q: %v", body, err)
		}
		u, err := url.Parse("http://a.test/" + strings.TrimPrefix(path, "/"))
		if err != nil {
			return
		}
		tg := target(u)
		if tg == "/robots.txt" {
			return // implicitly allowed, which the library does not know
		}
		if ours, lib := Parse([]byte(body), "crawlutils").Allowed(u), theirs.TestAgent(tg, "crawlutils"); ours != lib {
			t.Fatalf("%s: ours %v, temoto/robotstxt %v\n%s", tg, ours, lib, body)
		}
	})
}

// FuzzEachLine: a robots.txt body gives the same "name: value" lines
// whatever ends them (RFC 9309: CR, LF or CRLF, as old Mac files, Unix
// and Windows write them); a line end never shows in a name or value; a
// name is lower case and neither is padded with white space; and a BOM
// is skipped at the start of the body only.
func FuzzEachLine(f *testing.F) {
	for _, s := range []string{
		"Sitemap: https://a.example/sitemap.xml\rUser-agent: *\rDisallow: /private\rSitemap: https://a.example/s2.xml\r",
		"\ufeffSitemap: https://a.example/sitemap.xml\r\nUser-agent: *\r\nSitemap: https://a.example/s2.xml\r\n",
		"User-agent: *\nDisallow: /a # comment\n# Allow: /b\nnocolon\n",
		"\ufeff\ufeffuser-agent:*\r\r\n\n\rdisallow:/x", "Sitemap: http://a/x:8080/s.xml", " : \t\r", "",
	} {
		f.Add([]byte(s))
	}
	lines := func(body []byte) []string {
		var out []string
		EachLine(body, func(k, v string) {
			if strings.ContainsAny(k+v, "\r\n#") || k != strings.ToLower(k) || k != strings.TrimSpace(k) || v != strings.TrimSpace(v) {
				panic(fmt.Sprintf("EachLine(%q): name %q, value %q", body, k, v))
			}
			out = append(out, k+": "+v)
		})
		return out
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := lines(body)
		for _, end := range []string{"\r", "\n", "\r\n"} {
			// Every line end, whichever it was, written as end.
			re := bytes.ReplaceAll(bytes.ReplaceAll(bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n")), []byte("\n"), []byte(end))
			if again := lines(re); fmt.Sprint(again) != fmt.Sprint(got) {
				t.Fatalf("EachLine(%q) = %q; with its lines ended by %q: %q", body, got, end, again)
			}
		}
		if !bytes.HasPrefix(body, []byte("\ufeff")) {
			if again := lines(append([]byte("\ufeff"), body...)); fmt.Sprint(again) != fmt.Sprint(got) {
				t.Fatalf("EachLine(%q) = %q; after a BOM: %q", body, got, again)
			}
		}
		// Cut short, a body is read to the end of its last complete line;
		// whole, as it is.
		if h := Head(body, true); !bytes.HasPrefix(body, h) || len(h) > 0 && h[len(h)-1] != '\n' && h[len(h)-1] != '\r' || bytes.ContainsAny(body[len(h):], "\r\n") {
			t.Fatalf("Head(%q, true) = %q", body, h)
		}
		if h := Head(body, false); len(body) < MaxSize && !bytes.Equal(h, body) {
			t.Fatalf("Head(%q, false) = %q", body, h)
		}
		// The Sitemap lines read alone are those Parse reads, each one
		// field of printable characters.
		sm := Sitemaps(body)
		if parsed := Parse(body, "crawlutils").Sitemaps(); !slices.Equal(sm, parsed) {
			t.Fatalf("Sitemaps(%q) = %q, Parse's %q", body, sm, parsed)
		}
		for _, u := range sm {
			if u == "" || !printable(u) {
				t.Fatalf("Sitemaps(%q) gave %q", body, u)
			}
		}
	})
}
