package cthrottle

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/robots"
)

func TestRobotsDelay(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       time.Duration
	}{
		{"none", "User-agent: *\nDisallow: /private\n", 0},
		{"crawl-delay for all", "User-agent: *\nCrawl-delay: 2\n", 2 * time.Second},
		{"fractional", "User-agent: *\nCrawl-delay: 0.25\n", 250 * time.Millisecond},
		{"our group wins over *", "User-agent: *\nCrawl-delay: 10\n\nUser-agent: crawlutils\nCrawl-delay: 1\n", time.Second},
		{"our group by product token, any case", "User-agent: CrawlUtils/1.0\nCrawl-delay: 3\n", 3 * time.Second},
		{"another bot's group is not ours", "User-agent: otherbot\nCrawl-delay: 30\n\nUser-agent: *\nCrawl-delay: 1\n", time.Second},
		{"shared group", "User-agent: otherbot\nUser-agent: crawlutils\nCrawl-delay: 4\n", 4 * time.Second},
		{"groups for us merge", "User-agent: crawlutils\nCrawl-delay: 1\n\nUser-agent: crawlutils\nRequest-rate: 1/5\n", 5 * time.Second},
		{"request-rate", "User-agent: *\nRequest-rate: 3/1m\n", 20 * time.Second},
		{"request-rate with a time window", "User-agent: *\nRequest-rate: 1/10s 0600-0845\n", 10 * time.Second},
		{"the slower of the two", "User-agent: *\nCrawl-delay: 2\nRequest-rate: 1/5s\n", 5 * time.Second},
		{"comments, CRLF, BOM, spaces", "\xef\xbb\xbfUser-agent: * # all\r\nCrawl-delay : 1.5 # slow\r\n", 1500 * time.Millisecond},
		{"bad values are skipped", "User-agent: *\nCrawl-delay: soon\nCrawl-delay: -3\nRequest-rate: 0/5\nRequest-rate: x\n", 0},
		{"a delay before any group is ignored", "Crawl-delay: 9\nUser-agent: *\nDisallow:\n", 0},
		{"absurd values are skipped", "User-agent: *\nCrawl-delay: 1e300\nRequest-rate: 1/1e300h\n", 0},
		{"the largest sensible one", "User-agent: *\nCrawl-delay: 1e6\n", robots.MaxDelay},
		{"HTML, not robots.txt", "<html><body>Not found</body></html>", 0},
	} {
		if got := robotsDelay([]byte(tt.body), "crawlutils"); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzRobotsDelay(f *testing.F) {
	for _, s := range []string{"User-agent: *\nCrawl-delay: 2\n", "User-agent: a\nUser-agent: b\nRequest-rate: 1/5m\n", "Crawl-delay: 1e400", "User-agent: *\nRequest-rate: 1/-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := robotsDelay([]byte(s), "crawlutils"); d < 0 || d > robots.MaxDelay {
			t.Fatalf("delay %v", d)
		}
	})
}

// robotsServer serves body as /robots.txt with status, and counts the
// fetches.
func robotsServer(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		n.Add(1)
		if !strings.HasPrefix(r.Header.Get("User-Agent"), "crawlutils/") {
			t.Errorf("robots.txt fetched as %q", r.Header.Get("User-Agent"))
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRobotsFetch(t *testing.T) {
	f := newRobotsFetcher("crawlutils", time.Minute)
	for _, tt := range []struct {
		name   string
		status int
		body   string
		want   time.Duration
		note   string
	}{
		{"crawl-delay", 200, "User-agent: *\nCrawl-delay: 0.5\n", 500 * time.Millisecond, "delay 500ms"},
		{"capped", 200, "User-agent: *\nCrawl-delay: 600\n", time.Minute, "capped at --robots-max-delay 1m0s"},
		{"not found", 404, "User-agent: *\nCrawl-delay: 5\n", 0, "status 404: no delay"},
		{"server error", 503, "", 0, "status 503: no delay"},
		// The first 500 KiB, up to their last complete line, as cfetch
		// reads the file: the limit cuts "Crawl-delay: 15", which was
		// read as "Crawl-delay: 1", the larger.
		{"cut at 500 KiB", 200, "User-agent: *\nCrawl-delay: 0.5\n" +
			strings.Repeat("#", robots.MaxSize-len("User-agent: *\nCrawl-delay: 0.5\n")-len("Crawl-delay: 1")-1) + "\nCrawl-delay: 15\n", 500 * time.Millisecond, "delay 500ms"},
	} {
		srv, _ := robotsServer(t, tt.status, tt.body)
		a := f.fetch(context.Background(), srv.URL)
		if a.delay != tt.want || !strings.Contains(a.note, tt.note) {
			t.Errorf("%s: %v %q, want %v %q", tt.name, a.delay, a.note, tt.want, tt.note)
		}
	}
	a := f.fetch(context.Background(), "http://127.0.0.1:1")
	if a.delay != 0 || !strings.Contains(a.note, "not read") {
		t.Errorf("unreachable: %v %q", a.delay, a.note)
	}
}
