package demosite

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/integration"
	"golang.org/x/net/html"
)

// demoScope is the link rules of testdata/rules/demo.yml: on a page whose
// URL matches match, the links matching one of allow are followed.
var demoScope = []struct {
	match string
	allow []string
}{
	{`^https?://[^/]+/$`, []string{`/category/[^/]+/$`}},
	{`/category/[^/]+/(page-\d+\.html)?$`, []string{`/category/[^/]+/page-\d+\.html$`, `/catalogue/[^/]+_\d+/$`, `/p/\d+$`}},
	{`/catalogue/[^/]+_\d+/$`, []string{`/catalogue/[^/]+_\d+/$`, `/p/\d+$`, `/go/\d+$`}},
}

// TestDemoScopeIsTheRules keeps demoScope and testdata/rules/demo.yml
// together: every pattern of one is in the other, in the same order.
func TestDemoScopeIsTheRules(t *testing.T) {
	f, err := os.Open("../../testdata/rules/demo.yml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var inRules []string
	quoted := regexp.MustCompile(`^\s*(?:url:|-|allow:)\s*'([^']+)'`)
	sc := bufio.NewScanner(f)
	inLinks := false
	for sc.Scan() {
		inLinks = inLinks || strings.HasPrefix(sc.Text(), "links:")
		if m := quoted.FindStringSubmatch(sc.Text()); inLinks && m != nil {
			inRules = append(inRules, m[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var inScope []string
	for _, r := range demoScope {
		inScope = append(inScope, r.match)
		inScope = append(inScope, r.allow...)
	}
	if !slices.Equal(inRules, inScope) {
		t.Errorf("demo.yml's link patterns:\n%q\ndemoScope:\n%q", inRules, inScope)
	}
}

// pageLinks returns the absolute URLs of the <a href> links of a page,
// resolved against its <base href> when it has one.
func pageLinks(page *url.URL, body []byte) []*url.URL {
	base := page
	var refs []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr || (string(name) != "a" && string(name) != "base") {
			continue
		}
		for {
			k, v, more := z.TagAttr()
			if string(k) == "href" {
				if string(name) == "base" {
					if b, err := page.Parse(string(v)); err == nil && base == page {
						base = b
					}
				} else {
					refs = append(refs, string(v))
				}
			}
			if !more {
				break
			}
		}
	}
	out := make([]*url.URL, 0, len(refs))
	for _, r := range refs {
		if u, err := base.Parse(r); err == nil {
			u.Fragment = ""
			out = append(out, u)
		}
	}
	return out
}

// fakeClock is the site's clock in crawl tests: a crawler honouring
// Retry-After moves it on instead of sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// crawler is a test crawler of the demo scope: breadth first from "/", with
// a set of the paths it has requested. A perfect one follows redirects by
// hand (a target already requested is not requested again), honours
// robots.txt and retries a failure once, after its Retry-After (moving
// clock on); impatient retries at once; naive lets http.Client follow
// redirects.
type crawler struct {
	root      *url.URL
	clock     *fakeClock
	impatient bool
	naive     bool
	workers   int

	client   *http.Client
	mu       sync.Mutex
	seen     map[string]bool
	disallow []string
	products []string // canonical paths answered 200
	errors   []string
	pending  sync.WaitGroup
	queue    chan *url.URL
}

func (c *crawler) run(t *testing.T) {
	t.Helper()
	c.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	if !c.naive {
		c.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	defer c.client.CloseIdleConnections()
	c.seen = map[string]bool{}
	c.queue = make(chan *url.URL, 1<<16)
	robots, _ := c.root.Parse("/robots.txt")
	if resp, body, err := c.get(robots); err == nil && resp.StatusCode == 200 {
		for line := range strings.Lines(string(body)) {
			if p, ok := strings.CutPrefix(strings.TrimSpace(line), "Disallow: "); ok {
				c.disallow = append(c.disallow, p)
			}
		}
	}
	home, _ := c.root.Parse("/")
	c.enqueue(home)
	var workers sync.WaitGroup
	for range max(1, c.workers) {
		workers.Go(func() {
			for u := range c.queue {
				c.visit(u)
				c.pending.Done()
			}
		})
	}
	c.pending.Wait()
	close(c.queue)
	workers.Wait()
	for _, e := range c.errors {
		t.Error(e)
	}
	slices.Sort(c.products)
}

func (c *crawler) enqueue(u *url.URL) {
	if u.Host != c.root.Host {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.disallow {
		if strings.HasPrefix(u.Path, p) {
			return
		}
	}
	if c.seen[u.Path] {
		return
	}
	c.seen[u.Path] = true
	c.pending.Add(1)
	c.queue <- u
}

func (c *crawler) get(u *url.URL) (*http.Response, []byte, error) {
	resp, err := c.client.Get(u.String())
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func (c *crawler) visit(u *url.URL) {
	resp, body, err := c.get(u)
	if err != nil || resp.StatusCode == 500 || resp.StatusCode == 503 {
		if err == nil && !c.impatient {
			if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				c.clock.Advance(time.Duration(secs) * time.Second)
			}
		}
		resp, body, err = c.get(u)
	}
	if err != nil {
		c.mu.Lock()
		c.errors = append(c.errors, err.Error())
		c.mu.Unlock()
		return
	}
	final := resp.Request.URL
	switch {
	case resp.StatusCode/100 == 3:
		if to, err := final.Parse(resp.Header.Get("Location")); err == nil {
			c.enqueue(to)
		}
		return
	case resp.StatusCode != 200:
		return
	case strings.HasPrefix(final.Path, "/catalogue/"):
		c.mu.Lock()
		c.products = append(c.products, final.Path)
		c.mu.Unlock()
	}
	for _, rule := range demoScope {
		if !regexp.MustCompile(rule.match).MatchString(final.String()) {
			continue
		}
		for _, l := range pageLinks(final, body) {
			for _, allow := range rule.allow {
				if regexp.MustCompile(allow).MatchString(l.String()) {
					c.enqueue(l)
					break
				}
			}
		}
	}
}

// TestPerfectCrawl proves PerfectCrawl and the truth are what a perfect
// crawler gets: a breadth-first crawl of the demo rules' scope, honouring
// <base href>, robots.txt and Retry-After, following redirects by hand,
// makes exactly PerfectCrawl requests, no duplicate and no early retry,
// and reaches exactly the truth's product pages. Then an impatient crawler
// is caught retrying early, and a naive one fetching pages twice.
func TestPerfectCrawl(t *testing.T) {
	opts := Options{} // the default site, as the README demo crawls it
	if testing.Short() || raceEnabled || !integration.Enabled() {
		// Still has every reality; -race is ~20x slower, and the whole
		// site takes 10-40 s, too long for the fast tier.
		opts.Products = 800
		t.Logf("a site of %d products; the default site's with %s=1 and neither -short nor -race", opts.Products, integration.Env)
	}
	clock := newFakeClock()
	s, srv := testServerClock(t, opts, clock)
	root, _ := url.Parse(srv.URL)
	var want []string
	for _, p := range s.Truth() {
		want = append(want, p.URL)
	}
	shape := s.Shape()
	for _, workers := range []int{1, 8} {
		s.Reset()
		c := &crawler{root: root, clock: clock, workers: workers}
		c.run(t)
		if !slices.Equal(c.products, want) {
			t.Fatalf("%d workers: crawl reached %d product pages, truth has %d (first difference: %s)",
				workers, len(c.products), len(want), firstDifference(c.products, want))
		}
		st := s.Stats()
		t.Logf("%d workers: %+v", workers, st)
		if st.Requests != s.PerfectCrawl() || st.Expected != s.PerfectCrawl() || st.Duplicates != 0 || st.EarlyRetries != 0 {
			t.Errorf("%d workers: %d requests (expected %d), %d duplicates, %d early retries; want %d, 0, 0",
				workers, st.Requests, st.Expected, st.Duplicates, st.EarlyRetries, s.PerfectCrawl())
		}
		if st.Products != len(want) || st.Failures != shape.OneTime || st.Retries != shape.OneTime ||
			st.Resets != shape.Reset || st.Abandoned != 0 || st.RobotsTxt != 1 {
			t.Errorf("%d workers: stats %+v, shape %+v", workers, st, shape)
		}
		for path, n := range s.Hits() {
			if strings.HasPrefix(path, "/private/") {
				t.Errorf("%d workers: crawler fetched %s", workers, path)
			}
			if n > 2 {
				t.Errorf("%d workers: %s fetched %d times", workers, path, n)
			}
		}
	}

	s.Reset()
	(&crawler{root: root, clock: clock, impatient: true}).run(t)
	if st := s.Stats(); st.EarlyRetries != shape.RetryAfter503 || st.Duplicates != 0 {
		t.Errorf("impatient crawler: %d early retries, %d duplicates; want %d and 0", st.EarlyRetries, st.Duplicates, shape.RetryAfter503)
	}

	s.Reset()
	(&crawler{root: root, clock: clock, naive: true}).run(t)
	if st := s.Stats(); st.Duplicates < shape.Redirected+shape.ViaP || st.Requests-st.Duplicates != s.PerfectCrawl() {
		t.Errorf("naive crawler: %d requests, %d duplicates; want at least %d duplicates (a product reached directly and through /p/ is fetched twice) and %d other requests",
			st.Requests, st.Duplicates, shape.Redirected+shape.ViaP, s.PerfectCrawl())
	}
}

func firstDifference(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return "got " + got[i] + ", want " + want[i]
		}
	}
	if len(got) > len(want) {
		return "extra " + got[len(want)]
	}
	if len(want) > len(got) {
		return "missing " + want[len(got)]
	}
	return "none"
}

// TestPerfectCrawlSmallSites: PerfectCrawl holds for tiny catalogues and
// short listing pages too.
func TestPerfectCrawlSmallSites(t *testing.T) {
	for _, opts := range []Options{{Products: 1}, {Products: 5, PerPage: 2}, {Products: 38, PerPage: 3}, {Products: 150, PerPage: 7, Seed: 9}} {
		clock := newFakeClock()
		s, srv := testServerClock(t, opts, clock)
		root, _ := url.Parse(srv.URL)
		(&crawler{root: root, clock: clock, workers: 4}).run(t)
		if st := s.Stats(); st.Requests != s.PerfectCrawl() || st.Duplicates != 0 || st.Products != len(s.Truth()) {
			t.Errorf("%+v: %d requests, %d duplicates, %d products; want %d, 0, %d", opts, st.Requests, st.Duplicates, st.Products, s.PerfectCrawl(), len(s.Truth()))
		}
	}
}
