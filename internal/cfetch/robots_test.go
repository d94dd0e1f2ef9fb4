package cfetch

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/temoto/robotstxt"
)

func TestRobotsRules(t *testing.T) {
	tests := []struct {
		name  string
		txt   string
		allow []string
		deny  []string
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
		{"percent-encoded rule, UTF-8 URL", "User-agent: *\nDisallow: /caf%c3%a9\n",
			[]string{"/cafe"}, []string{"/café", "/caf%C3%A9/x"}},
		{"UTF-8 rule, percent-encoded URL", "User-agent: *\nDisallow: /café\n",
			[]string{"/cafe"}, []string{"/caf%C3%A9", "/caf%c3%a9"}},
		{"escaped unreserved characters", "User-agent: *\nDisallow: /%7Ejoe\n",
			[]string{"/joe"}, []string{"/~joe/x"}},
		{"escaped reserved characters stay escaped", "User-agent: *\nDisallow: /a%2Fb\n",
			[]string{"/a/b"}, []string{"/a%2fb"}},
		{"our group, exact token", "User-agent: *\nDisallow: /\n\nUser-agent: crawlutils\nDisallow: /mine/\n",
			[]string{"/", "/x"}, []string{"/mine/a"}},
		{"our group, any case, with a version", "User-agent: *\nDisallow: /\n\nUser-agent: CrawlUtils/2.0\nAllow: /\n",
			[]string{"/x"}, nil},
		{"a token that is only a prefix of ours is not ours", "User-agent: crawl\nDisallow: /\n",
			[]string{"/x"}, nil},
		{"groups split by an empty Disallow", "User-agent: crawlutils\nDisallow:\n\nUser-agent: other\nDisallow: /\n",
			[]string{"/x"}, nil},
		{"two user agents share a group", "User-agent: other\nUser-agent: crawlutils\nDisallow: /both\n",
			[]string{"/x"}, []string{"/both"}},
		{"groups of the same agent merge", "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
			[]string{"/c"}, []string{"/a", "/b"}},
		{"comments, BOM, CRLF, odd spacing", "\ufeff# hello\r\nUSER-AGENT :  *   # all\r\n  disallow:/x # no\r\n",
			[]string{"/y"}, []string{"/x"}},
		{"rules before any User-agent are ignored", "Disallow: /\nUser-agent: *\nDisallow: /x\n",
			[]string{"/y"}, []string{"/x"}},
		{"an HTML page allows all", "<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n<body><p>Disallow: nothing: here</p></body></html>\n",
			[]string{"/", "/x"}, nil},
		{"a bad Crawl-delay does not spoil the file", "User-agent: *\nCrawl-delay: soon\nDisallow: /x\n",
			[]string{"/y"}, []string{"/x"}},
		{"empty file", "", []string{"/"}, nil},
	}
	for _, tt := range tests {
		r := parseRobots([]byte(tt.txt), "crawlutils")
		for _, p := range tt.allow {
			if u := mustURL(t, "http://a.test"+p); !r.allowed(u) {
				t.Errorf("%s: %s denied, want allowed", tt.name, p)
			}
		}
		for _, p := range tt.deny {
			if u := mustURL(t, "http://a.test"+p); r.allowed(u) {
				t.Errorf("%s: %s allowed, want denied", tt.name, p)
			}
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRobotsCrawlDelayAndSitemaps(t *testing.T) {
	txt := "User-agent: *\nCrawl-delay: 10\n\nUser-agent: crawlutils\nCrawl-delay: 0.5\nDisallow: /x\n\nSitemap: https://a.test/sitemap.xml\n"
	r := parseRobots([]byte(txt), "crawlutils")
	if r.crawlDelay != 500*time.Millisecond {
		t.Errorf("crawl delay %s, want our group's 500ms", r.crawlDelay)
	}
	if len(r.sitemaps) != 1 || r.sitemaps[0] != "https://a.test/sitemap.xml" {
		t.Errorf("sitemaps %q", r.sitemaps)
	}
	if r := parseRobots([]byte(txt), "otherbot"); r.crawlDelay != 10*time.Second {
		t.Errorf("otherbot crawl delay %s", r.crawlDelay)
	}
}

func TestJudgeRobots(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	page := &body{data: []byte("User-agent: *\nDisallow: /p\n")}
	tests := []struct {
		name        string
		out         outcome
		state       string
		retryable   bool
		unreachable string
	}{
		{"200", outcome{status: 200, connected: true, body: page}, robotsParsed, false, ""},
		{"404 allows all", outcome{status: 404, connected: true}, robotsAllowAll, false, ""},
		{"401 allows all", outcome{status: 401, connected: true}, robotsAllowAll, false, ""},
		{"503 disallows, retry", outcome{status: 503, connected: true}, robotsUnavailable, true, ""},
		{"500 disallows, retry", outcome{status: 500, connected: true}, robotsUnavailable, true, ""},
		{"429 disallows, retry", outcome{status: 429, connected: true}, robotsUnavailable, true, ""},
		{"response timeout disallows", outcome{err: &FetchError{Code: ErrTimeout}, connected: true}, robotsUnavailable, true, ""},
		{"reset disallows", outcome{err: &FetchError{Code: ErrReset}, connected: true}, robotsUnavailable, true, ""},
		{"refused: host unreachable", outcome{err: &FetchError{Code: ErrRefused}}, "", false, ErrRefused},
		{"dns: host unreachable", outcome{err: &FetchError{Code: ErrDNS}}, "", false, ErrDNS},
		{"too large allows all", outcome{err: &FetchError{Code: ErrTooLarge}, status: 200, connected: true}, robotsAllowAll, false, ""},
		{"too many redirects allows all", outcome{status: 301, connected: true}, robotsAllowAll, false, ""},
		{"cache miss allows all", outcome{err: &FetchError{Code: ErrCacheMiss}}, robotsAllowAll, false, ""},
	}
	for _, tt := range tests {
		v := judgeRobots(&tt.out, "http://a.test/robots.txt", "crawlutils", now)
		switch {
		case tt.unreachable != "":
			if v.unreachable == nil || v.unreachable.Code != tt.unreachable || v.entry != nil {
				t.Errorf("%s: %+v", tt.name, v)
			}
		case v.entry == nil || v.entry.state != tt.state || v.retryable != tt.retryable:
			t.Errorf("%s: %+v, want state %s retryable %v", tt.name, v, tt.state, tt.retryable)
		}
	}
	v := judgeRobots(&outcome{status: 200, body: page}, "http://a.test/robots.txt", "crawlutils", now)
	if ok, why := v.entry.check(mustURL(t, "http://a.test/p/1"), "crawlutils"); ok || why != `disallowed by http://a.test/robots.txt for user agent "crawlutils"` {
		t.Errorf("check = %v %q", ok, why)
	}
	if !v.entry.expires.Equal(now.Add(robotsTTL)) {
		t.Errorf("expires %s", v.entry.expires)
	}
	v = judgeRobots(&outcome{status: 503}, "http://a.test/robots.txt", "crawlutils", now)
	if ok, why := v.entry.check(mustURL(t, "http://a.test/"), "crawlutils"); ok || !strings.Contains(why, "http://a.test/robots.txt is unavailable (status 503)") {
		t.Errorf("check = %v %q", ok, why)
	}
}

func TestRobotsCache(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newRobotsCache(2)
	good := &robotsEntry{state: robotsParsed, rules: parseRobots([]byte("User-agent: *\nDisallow: /x\n"), "crawlutils"), expires: now.Add(robotsTTL)}
	c.put("a:80", good)
	if e, fresh := c.get("a:80", now.Add(robotsTTL-time.Second)); e != good || !fresh {
		t.Error("entry not fresh before its expiry")
	}
	if _, fresh := c.get("a:80", now.Add(robotsTTL)); fresh {
		t.Error("entry fresh after its expiry")
	}
	// Unavailable after expiry: the old copy stays in use until the retry.
	later := now.Add(robotsTTL + time.Hour)
	e := c.put("a:80", &robotsEntry{state: robotsUnavailable, detail: "status 503", expires: later.Add(robotsRetryTTL)})
	if e.state != robotsParsed || !e.expires.Equal(later.Add(robotsRetryTTL)) {
		t.Errorf("after a failed refresh: %+v", e)
	}
	// Least recently used goes first.
	c.put("b:80", good)
	c.get("a:80", now)
	c.put("c:80", good)
	if _, ok := c.m["b:80"]; ok || c.len() != 2 {
		t.Errorf("entries %v", c.m)
	}
}

func TestProductToken(t *testing.T) {
	for in, want := range map[string]string{
		DefaultUserAgent():                      "crawlutils",
		"MyBot/1.0":                             "mybot",
		"Mozilla/5.0 (compatible; Googlebot)":   "mozilla",
		"  my_bot-2 extra":                      "my_bot-2",
		"/1.0":                                  "",
		"Googlebot-Image":                       "googlebot-image",
		"crawlutils/0.1.0-dev (+https://x/y z)": "crawlutils",
	} {
		if got := productToken(in); got != want {
			t.Errorf("productToken(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRobots: any file parses, the rewrite never trips the library, and
// equally long Allow and Disallow rules resolve to Allow.
func FuzzRobots(f *testing.F) {
	for _, s := range []string{
		"User-agent: *\nDisallow: /private/\n",
		"User-agent: crawlutils\nAllow: /a$\nDisallow: /*.php\nCrawl-delay: 2.5\n",
		"User-agent: *\nDisallow:\nUser-agent: x\nDisallow: /\nSitemap: http://a/s.xml\n",
		"<html><body>Disallow: /</body></html>",
		"\ufeffuser-agent:*\r\ndisallow:/caf%c3%a9\rallow:/%7e",
		"Crawl-delay: 1e400\nUser-agent: *\nCrawl-delay: -1\n",
	} {
		f.Add(s, "/a/b?c=d")
	}
	f.Fuzz(func(t *testing.T, txt, path string) {
		if _, err := robotstxt.FromBytes(canonicalRobots([]byte(txt))); err != nil {
			t.Fatalf("canonical rewrite does not parse: %v\n%q", err, canonicalRobots([]byte(txt)))
		}
		r := parseRobots([]byte(txt), "crawlutils")
		u, err := url.Parse("http://a.test/" + strings.TrimPrefix(path, "/"))
		if err != nil {
			return
		}
		r.allowed(u)
		if r.crawlDelay < 0 {
			t.Fatalf("negative crawl delay %s", r.crawlDelay)
		}
		// The URL's own path, as both Allow and Disallow: Allow wins.
		rule := u.EscapedPath()
		if strings.ContainsAny(rule, "*$# \t") {
			return
		}
		both := parseRobots([]byte("User-agent: *\nDisallow: "+rule+"\nAllow: "+rule+"\n"), "crawlutils")
		if !both.allowed(u) {
			t.Fatalf("Allow and Disallow %q: %s denied", rule, u.EscapedPath())
		}
		deny := parseRobots([]byte("User-agent: *\nDisallow: "+rule+"\n"), "crawlutils")
		if deny.allowed(u) {
			t.Fatalf("Disallow %q: %s allowed", rule, u.EscapedPath())
		}
	})
}
