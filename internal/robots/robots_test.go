package robots

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// check parses txt for crawlutils and wants each of allow allowed and each
// of deny denied (paths and queries on http://a.test).
func check(t *testing.T, name, txt string, allow, deny []string) {
	t.Helper()
	r := Parse([]byte(txt), "crawlutils")
	for _, p := range allow {
		if !r.Allowed(mustURL(t, "http://a.test"+p)) {
			t.Errorf("%s: %s denied, want allowed", name, p)
		}
	}
	for _, p := range deny {
		if r.Allowed(mustURL(t, "http://a.test"+p)) {
			t.Errorf("%s: %s allowed, want denied", name, p)
		}
	}
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		name        string
		txt         string
		allow, deny []string
	}{
		{"simple", "User-agent: *\nDisallow: /private/\n",
			[]string{"/", "/public", "/private"}, []string{"/private/", "/private/x?y=1"}},
		{"equal length: Allow wins, whatever the order (RFC 9309)", "User-agent: *\nDisallow: /page\nAllow: /page\n",
			[]string{"/page", "/page2"}, nil},
		{"equal length, Allow first", "User-agent: *\nAllow: /page\nDisallow: /page\n",
			[]string{"/page"}, nil},
		{"longest match wins", "User-agent: *\nDisallow: /a\nAllow: /a/b\n",
			[]string{"/a/b", "/a/b/c", "/b"}, []string{"/a", "/a/c"}},
		{"Disallow / and Allow /$", "User-agent: *\nDisallow: /\nAllow: /$\n",
			[]string{"/"}, []string{"/x", "/index.html"}},
		{"Disallow / beats an empty Disallow", "User-agent: *\nDisallow:\nDisallow: /\n",
			nil, []string{"/", "/x"}},
		{"wildcards", "User-agent: *\nDisallow: /*.php$\nDisallow: /*?sessionid\n",
			[]string{"/index.php?x=1", "/a.phpx", "/page?id=1", "/p?a=1&sessionid=2"}, []string{"/index.php", "/x/y.php", "/page?sessionid=7"}},
		{"patterns match from the start only", "User-agent: *\nDisallow: /a*b\n",
			[]string{"/x/a/b", "/b"}, []string{"/ab", "/a/x/b"}},
		{"Disallow *", "User-agent: *\nDisallow: *\n", nil, []string{"/", "/a"}},
		{"a path without its leading slash gets one", "User-agent: *\nDisallow: private\n", []string{"/x"}, []string{"/private"}},
		{"percent-encoded rule, UTF-8 URL", "User-agent: *\nDisallow: /caf%c3%a9\n",
			[]string{"/cafe"}, []string{"/café", "/caf%C3%A9/x"}},
		{"UTF-8 rule, percent-encoded URL", "User-agent: *\nDisallow: /café\n",
			[]string{"/cafe"}, []string{"/caf%C3%A9", "/caf%c3%a9"}},
		{"escaped unreserved characters", "User-agent: *\nDisallow: /%7Ejoe\n",
			[]string{"/joe"}, []string{"/~joe/x"}},
		{"escaped reserved characters stay escaped", "User-agent: *\nDisallow: /a%2Fb\n",
			[]string{"/a/b"}, []string{"/a%2fb"}},
		{"literal * and $ in a URL are named %2A and %24 (RFC 9309 §2.2.3)", "User-agent: *\nDisallow: /file-%2A.html\nDisallow: /foo-%24\n",
			[]string{"/file-x.html", "/foo-"}, []string{"/file-*.html", "/foo-$", "/foo-%24x"}},
		{"a '$' not at the end is literal", "User-agent: *\nDisallow: /a$b\n", []string{"/a", "/ab"}, []string{"/a$b", "/a$bc"}},
		{"a lone '%' is %25", "User-agent: *\nDisallow: /100%\n", []string{"/100"}, []string{"/100%25", "/100%25off"}},
		{"our group, exact token", "User-agent: *\nDisallow: /\n\nUser-agent: crawlutils\nDisallow: /mine/\n",
			[]string{"/", "/x"}, []string{"/mine/a"}},
		{"our group, any case, with a version", "User-agent: *\nDisallow: /\n\nUser-agent: CrawlUtils/2.0\nAllow: /\n",
			[]string{"/x"}, nil},
		{"a token that is only a prefix of ours is not ours", "User-agent: crawl\nDisallow: /\n",
			[]string{"/x"}, nil},
		{"a token ours is a prefix of is not ours", "User-agent: crawlutilsx\nDisallow: /\n",
			[]string{"/x"}, nil},
		{"'*' must stand alone", "User-agent: *bot\nDisallow: /\n", []string{"/x"}, nil},
		{"'*' with a comment", "User-agent: * # everyone\nDisallow: /x\n", nil, []string{"/x"}},
		{"groups split by an empty Disallow", "User-agent: crawlutils\nDisallow:\n\nUser-agent: other\nDisallow: /\n",
			[]string{"/x"}, nil},
		{"two user agents share a group", "User-agent: other\nUser-agent: crawlutils\nDisallow: /both\n",
			[]string{"/x"}, []string{"/both"}},
		{"groups of the same agent merge", "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
			[]string{"/c"}, []string{"/a", "/b"}},
		{"our groups merge, and the '*' group no longer applies", "User-agent: crawlutils\nDisallow: /a\nUser-agent: *\nDisallow: /\nUser-agent: CRAWLUTILS\nDisallow: /b\n",
			[]string{"/c"}, []string{"/a", "/b"}},
		{"our group without rules allows all", "User-agent: *\nDisallow: /\n\nUser-agent: crawlutils\n", []string{"/x"}, nil},
		{"Sitemap, Crawl-delay and unknown lines do not end a run of User-agent lines", "User-agent: crawlutils\nCrawl-delay: 1\nSitemap: http://a.test/s.xml\nSeen-by: x\nUser-agent: other\nDisallow: /\n",
			nil, []string{"/x"}},
		{"comments, BOM, CRLF, odd spacing", "\ufeff# hello\r\nUSER-AGENT :  *   # all\r\n  disallow:/x # no\r\n",
			[]string{"/y"}, []string{"/x"}},
		{"rules before any User-agent are ignored", "Disallow: /\nUser-agent: *\nDisallow: /x\n",
			[]string{"/y"}, []string{"/x"}},
		{"a misspelt name is no record", "User-agent: *\nDisalow: /\nuseragent: crawlutils\nDisallow: /x\n", []string{"/"}, []string{"/x"}},
		{"an HTML page allows all", "<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n<body><p>Disallow: nothing: here</p></body></html>\n",
			[]string{"/", "/x"}, nil},
		{"a bad Crawl-delay does not spoil the file", "User-agent: *\nCrawl-delay: soon\nDisallow: /x\n",
			[]string{"/y"}, []string{"/x"}},
		{"empty file", "", []string{"/"}, nil},
		{"the fragment is not matched", "User-agent: *\nDisallow: /a$\n", []string{"/a?b"}, []string{"/a#b"}},
	}
	for _, tt := range tests {
		check(t, tt.name, tt.txt, tt.allow, tt.deny)
	}
}

// TestLongestMatchCountsWildcardsAsWritten: the defects of ranking a
// wildcard rule by the length of its compiled regexp (temoto/robotstxt's
// way): RFC 9309 §2.2.2 ranks by the rule's octets, '*' and '$' included.
func TestLongestMatchCountsWildcardsAsWritten(t *testing.T) {
	check(t, "Disallow /private/ (9) beats Allow /*.css$ (7)", "User-agent: *\nDisallow: /private/\nAllow: /*.css$\n",
		[]string{"/a.css", "/public/a.css", "/private"}, []string{"/private/a.css", "/private/", "/private/a.css?v=1"})
	check(t, "Allow /x/page. (8) beats Disallow /*.html (7)", "User-agent: *\nallow: /x/page.\ndisallow: /*.html\n",
		[]string{"/x/page.html", "/x/page.htm"}, []string{"/x/y.html", "/page.html"})
	check(t, "Disallow /x/page. (8) beats Allow /*.html (7)", "User-agent: *\ndisallow: /x/page.\nallow: /*.html\n",
		[]string{"/x/y.html", "/x/page"}, []string{"/x/page.html", "/x/page.htm"})
	check(t, "a longer pattern wins over a shorter literal", "User-agent: *\nAllow: /page\nDisallow: /*.htm\n",
		[]string{"/page", "/pages.ht"}, []string{"/page.htm", "/page.html?x"})
}

// TestRobotsTxtIsAlwaysAllowed: RFC 9309 §2.2.2, "The /robots.txt URI is
// implicitly allowed."
func TestRobotsTxtIsAlwaysAllowed(t *testing.T) {
	check(t, "Disallow: /", "User-agent: *\nDisallow: /\n",
		[]string{"/robots.txt"}, []string{"/", "/robots.txt.bak", "/robots.txt?x=1", "/x/robots.txt", "/Robots.txt"})
	check(t, "Disallow: /robots.txt", "User-agent: crawlutils\nDisallow: /robots.txt$\n", []string{"/robots.txt", "/"}, nil)
	check(t, "escaped", "User-agent: *\nDisallow: /\n", []string{"/%72obots.txt"}, nil)
}

func TestCrawlDelayAndSitemaps(t *testing.T) {
	txt := "Sitemap: https://a.test/first.xml\nUser-agent: *\nCrawl-delay: 10\n\nUser-agent: crawlutils\nCrawl-delay: 0.5\nDisallow: /x\n\nSitemap: https://a.test/sitemap.xml extra\nSitemap:\n"
	r := Parse([]byte(txt), "crawlutils")
	if r.CrawlDelay() != 500*time.Millisecond {
		t.Errorf("crawl delay %s, want our group's 500ms", r.CrawlDelay())
	}
	if want := []string{"https://a.test/first.xml", "https://a.test/sitemap.xml"}; !slices.Equal(r.Sitemaps(), want) {
		t.Errorf("sitemaps %q, want %q", r.Sitemaps(), want)
	}
	if r := Parse([]byte(txt), "OtherBot"); r.CrawlDelay() != 10*time.Second {
		t.Errorf("otherbot crawl delay %s", r.CrawlDelay())
	}
	for txt, want := range map[string]time.Duration{
		"User-agent: *\nCrawl-delay: 2\nCrawl-delay: 1\n":                      2 * time.Second, // the largest
		"User-agent: *\nCrawldelay: 3\n":                                       3 * time.Second,
		"User-agent: *\nCrawl-delay: -1\nCrawl-delay: NaN\nCrawl-delay: 1e7\n": 0,
		"Crawl-delay: 5\nUser-agent: *\n":                                      0, // before any group
		"User-agent: a\nCrawl-delay: 4\nUser-agent: *\nDisallow: /\n":          0, // a's, though a and * share the group
		"User-agent: a\nUser-agent: *\nCrawl-delay: 4\nDisallow: /\n":          4 * time.Second,
		"User-agent: *\nDisallow: /\nCrawl-delay: 6\n":                         6 * time.Second,
	} {
		if got := Parse([]byte(txt), "crawlutils").CrawlDelay(); got != want {
			t.Errorf("%q: crawl delay %s, want %s", txt, got, want)
		}
	}
}

func TestRequestInterval(t *testing.T) {
	for txt, want := range map[string]time.Duration{
		"User-agent: *\nRequest-rate: 1/5\n":                                                              5 * time.Second,
		"User-agent: *\nRequest-rate: 3/1m\n":                                                             20 * time.Second,
		"User-agent: *\nRequestrate: 100/1h\n":                                                            36 * time.Second,
		"User-agent: *\nRequest-rate: 1/10s 0600-0845\n":                                                  10 * time.Second, // the window is not read
		"User-agent: *\nRequest-rate: 1/5\nRequest-rate: 1/2\n":                                           5 * time.Second,  // the largest
		"User-agent: *\nRequest-rate: 0/5\nRequest-rate: x\nRequest-rate: 1/-3\nRequest-rate: 1/1e300h\n": 0,
		"Request-rate: 1/9\nUser-agent: *\n":                                                              0,               // before any group
		"User-agent: *\nRequest-rate: 1/9\n\nUser-agent: crawlutils\nRequest-rate: 1/2\n":                 2 * time.Second, // ours, not *'s
		"User-agent: crawlutils\nCrawl-delay: 1\n\nUser-agent: crawlutils\nRequest-rate: 1/5\n":           5 * time.Second, // our groups merge
	} {
		if got := Parse([]byte(txt), "crawlutils").RequestInterval(); got != want {
			t.Errorf("%q: request interval %s, want %s", txt, got, want)
		}
	}
	var r *Rules
	if r.RequestInterval() != 0 {
		t.Error("a nil *Rules asks for a request interval")
	}
}

func TestNilRules(t *testing.T) {
	var r *Rules
	if !r.Allowed(mustURL(t, "http://a.test/x")) || r.CrawlDelay() != 0 || r.Sitemaps() != nil {
		t.Error("a nil *Rules does not allow all")
	}
	if !(&Rules{}).Allowed(mustURL(t, "http://a.test/x")) {
		t.Error("a zero Rules does not allow all")
	}
}

func TestProductToken(t *testing.T) {
	for in, want := range map[string]string{
		"crawlutils/0.1.0-dev (+https://x/y z)": "crawlutils",
		"MyBot/1.0":                             "mybot",
		"Mozilla/5.0 (compatible; Googlebot)":   "mozilla",
		"  my_bot-2 extra":                      "my_bot-2",
		"/1.0":                                  "",
		"Googlebot-Image":                       "googlebot-image",
	} {
		if got := ProductToken(in); got != want {
			t.Errorf("ProductToken(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTarget(t *testing.T) {
	for in, want := range map[string]string{
		"http://a.test":              "/",
		"http://a.test?":             "/?",
		"http://a.test/a b?c d":      "/a%20b?c%20d",
		"http://a.test/%7e%2f%e9":    "/~%2F%E9",
		"http://a.test/a*b$?c*$":     "/a%2Ab%24?c%2A%24",
		"http://a.test/p;x=1?q#frag": "/p;x=1?q",
	} {
		if got := target(mustURL(t, in)); got != want {
			t.Errorf("target(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		pattern, t string
		want       bool
	}{
		{"/", "/", true}, {"/a", "/", false}, {"/a$", "/a", true}, {"/a$", "/ab", false},
		{"*", "/x", true}, {"/*$", "/x", true}, {"$", "/", false}, {"/$", "/", true},
		{"/a*", "/a", true}, {"/a**b", "/ab", true}, {"/a*b*c$", "/abcbc", true}, {"/a*b*c$", "/abcb", false},
		{"/*aa$", "/a", false}, {"/*ab*ab$", "/ab", false}, {"/*ab*ab$", "/abab", true}, {"/*ab*ab", "/abxab", true},
		{"/*.php$", "/a.php.php", true}, {"/*.php$", "/a.php5", false},
	}
	for _, tt := range tests {
		if got := matches(tt.pattern, tt.t); got != tt.want {
			t.Errorf("matches(%q, %q) = %v", tt.pattern, tt.t, got)
		}
		if got := matchesDP(tt.pattern, tt.t); got != tt.want {
			t.Errorf("matchesDP(%q, %q) = %v (the reference is wrong)", tt.pattern, tt.t, got)
		}
	}
}

// matchesDP is the reference matcher the fast one is held against: the
// textbook dynamic program over pattern and target, O(len·len).
func matchesDP(pattern, t string) bool {
	anchored := len(pattern) > 0 && pattern[len(pattern)-1] == '$'
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	// ok[j]: pattern[:i] matches t[:j].
	ok := make([]bool, len(t)+1)
	ok[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(t)+1)
		for j := 0; j <= len(t); j++ {
			if pattern[i] == '*' {
				next[j] = ok[j] || j > 0 && next[j-1]
			} else {
				next[j] = j > 0 && ok[j-1] && t[j-1] == pattern[i]
			}
		}
		ok = next
	}
	if anchored {
		return ok[len(t)]
	}
	return slices.Contains(ok, true)
}

// BenchmarkAllowedHostile: a file of many wildcard rules built to make a
// backtracking matcher slow, against a long path that nearly matches each.
func BenchmarkAllowedHostile(b *testing.B) {
	var txt []byte
	txt = append(txt, "User-agent: *\n"...)
	for i := 0; i < 200; i++ {
		txt = append(txt, "Disallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b$\n"...)
	}
	r := Parse(txt, "crawlutils")
	u := mustURL(b, "http://a.test/"+string(slices.Repeat([]byte("a"), 4000)))
	b.ResetTimer()
	for b.Loop() {
		r.Allowed(u)
	}
}

// TestSitemaps: the Sitemap lines of a file, read alone as Parse reads
// them (the field name in any case, comments removed, lines ended by CR,
// LF or CRLF, a BOM skipped), each value's first field: cextract read the
// whole value, so "Sitemap: URL extra" requested "URL%20extra".
func TestSitemaps(t *testing.T) {
	want := []string{"https://a.example/sitemap.xml", "https://a.example/s2.xml", "/relative.xml"}
	for _, body := range []string{
		"User-agent: *\nDisallow: /private/\n# Sitemap: https://no.example/\nSitemap: https://a.example/sitemap.xml\nsitemap:https://a.example/s2.xml # second\r\nSITEMAP : \nSitemap: /relative.xml\n",
		"Sitemap: https://a.example/sitemap.xml (the shop)\rUser-agent: *\rDisallow: /private\rSitemap:\thttps://a.example/s2.xml\tgzip\rSitemap: /relative.xml",
		"\ufeffSitemap: https://a.example/sitemap.xml\r\nUser-agent: *\r\nSitemap: https://a.example/s2.xml\r\nSitemap: \x01bad\r\nSitemap: /relative.xml\r\n",
	} {
		if got := Sitemaps([]byte(body)); !slices.Equal(got, want) {
			t.Errorf("Sitemaps(%q) = %q, want %q", body, got, want)
		}
		if got := Parse([]byte(body), "crawlutils").Sitemaps(); !slices.Equal(got, want) {
			t.Errorf("Parse(%q).Sitemaps() = %q, want %q", body, got, want)
		}
	}
}

// TestHead: a robots.txt of MaxSize or more is read up to the end of its
// last complete line within MaxSize; a shorter one whole.
func TestHead(t *testing.T) {
	// A comment line, so that the limit cuts "Crawl-delay: 10" after its 1.
	pad := strings.Repeat("#", MaxSize-len("User-agent: *\n")-len("Crawl-delay: 1")-1) + "\n"
	long := "User-agent: *\n" + pad + "Crawl-delay: 10\nDisallow: /after\n"
	for _, tt := range []struct {
		name      string
		in        string
		truncated bool
		want      string
	}{
		{"short", "a\nb", false, "a\nb"},
		{"short, cut by its reader", "a\nb\nc", true, "a\nb\n"},
		{"CRLF, cut by its reader", "a\r\nbc", true, "a\r\n"},
		{"no line end, cut by its reader", "abc", true, ""},
		{"longer than MaxSize", long, false, "User-agent: *\n" + pad},
		{"exactly MaxSize, ending a line", long[:MaxSize-1] + "\n", false, long[:MaxSize-1] + "\n"},
	} {
		if got := string(Head([]byte(tt.in), tt.truncated)); got != tt.want {
			t.Errorf("%s: Head = %d bytes ending %q, want %d ending %q", tt.name, len(got), got[max(0, len(got)-20):], len(tt.want), tt.want[max(0, len(tt.want)-20):])
		}
	}
	if d := Parse(Head([]byte(long), false), "x").CrawlDelay(); d != 0 {
		t.Errorf("the Crawl-delay line the limit cuts was read: %v", d)
	}
}
