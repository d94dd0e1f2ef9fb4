package cfetch

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/robots"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestJudgeRobots(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newRobotsCache(2)
	good := &robotsEntry{state: robotsParsed, rules: robots.Parse([]byte("User-agent: *\nDisallow: /x\n"), "crawlutils"), expires: now.Add(robotsTTL)}
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

// TestDefaultRobotsAgent: the group cfetch obeys by default is named by
// the product token of its default User-Agent.
func TestDefaultRobotsAgent(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	if got := o.robotsAgent(); got != "crawlutils" {
		t.Errorf("robots agent %q, want crawlutils", got)
	}
}

// TestRobotsLongestMatchAsWritten pins two defects of matching with
// temoto/robotstxt (RFC 9309 §2.2.2): a wildcard rule was ranked by the
// length of the regexp it compiled to, not by its octets as written, so
// "Allow: /*.css$" (7 octets) beat "Disallow: /private/" (9); and
// /robots.txt, which is implicitly allowed, was refused under "Disallow: /".
func TestRobotsLongestMatchAsWritten(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		txt, path string
		allowed   bool
	}{
		{"User-agent: *\nDisallow: /private/\nAllow: /*.css$\n", "/private/a.css", false},
		{"User-agent: *\nDisallow: /private/\nAllow: /*.css$\n", "/public/a.css", true},
		{"User-agent: *\nAllow: /x/page.\nDisallow: /*.html\n", "/x/page.html", true},
		{"User-agent: *\nAllow: /x/page.\nDisallow: /*.html\n", "/x/y.html", false},
		{"User-agent: *\nDisallow: /x/page.\nAllow: /*.html\n", "/x/page.html", false},
		{"User-agent: *\nDisallow: /x/page.\nAllow: /*.html\n", "/x/y.html", true},
		{"User-agent: *\nDisallow: /\n", "/robots.txt", true},
		{"User-agent: *\nDisallow: /\n", "/robots.txt.bak", false},
	}
	for _, tt := range tests {
		out := &outcome{status: 200, connected: true, body: &body{data: []byte(tt.txt)}}
		v := judgeRobots(out, "http://a.test/robots.txt", "crawlutils", now)
		if ok, why := v.entry.check(mustURL(t, "http://a.test"+tt.path), "crawlutils"); ok != tt.allowed {
			t.Errorf("%q: %s allowed = %v (%s), want %v", tt.txt, tt.path, ok, why, tt.allowed)
		}
	}
}

// TestRobotsWildcardAllowDoesNotOpenADisallowedDirectory: the tester's
// case end to end. /private/a.css is answered "error":"robots" and never
// requested; /robots.txt asked for as a page is fetched although the file
// says "Disallow: /" for everything else.
func TestRobotsWildcardAllowDoesNotOpenADisallowedDirectory(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	s.setRobots("shop.test", robotsText("User-agent: *\nDisallow: /private/\nAllow: /*.css$\n"))
	s.setRobots("closed.test", robotsText("User-agent: *\nDisallow: /\n"))
	port, resolve := vhost(t, s.Server)
	shop, closed := "http://shop.test:"+port, "http://closed.test:"+port
	in := strings.Join([]string{shop + "/private/a.css", shop + "/ok", closed + "/robots.txt", closed + "/ok"}, "\n") + "\n"
	res := runCfetch(t, in, append(resolve, fast...)...)
	if res.code != 0 || len(res.resps) != 4 {
		t.Fatalf("exit %d, %d responses\n%s", res.code, len(res.resps), res.stderr)
	}
	byURL := map[string]record.Response{}
	for _, r := range res.resps {
		byURL[r.URL] = r
	}
	for u, denied := range map[string]bool{shop + "/private/a.css": true, shop + "/ok": false, closed + "/robots.txt": false, closed + "/ok": true} {
		if r := byURL[u]; (r.Error == ErrRobots) != denied {
			t.Errorf("%s: error %q %s, want denied %v", u, r.Error, r.ErrorDetail, denied)
		}
	}
	if n := s.hits("shop.test /private/a.css"); n != 0 {
		t.Errorf("/private/a.css was requested %d times", n)
	}
	if n := s.hits("closed.test /robots.txt"); n != 2 {
		t.Errorf("closed.test/robots.txt requested %d times, want 2 (the file, then the page)", n)
	}
}
