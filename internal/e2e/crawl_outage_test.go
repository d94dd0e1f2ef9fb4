package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A nightly crawl (docs/cron.md's recipe) whose site is down one night:
// that night's run exits 1 and leaves its round unfinished, and the next
// night's, the site back, queues the round's seeds again (the round's
// duplicate filter has them as seen) and completes the round, in round 1
// as in a later one. A site answering 503 to everything is down too: its
// night completes no round and reports no item gone. A seed refused for a
// cause that would come back (robots.txt disallows it) is not fetched
// night after night: the next run says why and does nothing, and --resume
// fetches it again once the cause is fixed.

// outageRules extracts each page's title and follows every link.
const outageRules = `version: 1
items:
  - name: page
    fields:
      url: "@url"
      title: {css: h1, required: true}
links:
  - name: all
`

// outageRecipe is the crawl of the issue, as cron runs it every night.
const outageRecipe = `seeds.txt rules.yml items.jsonl --db crawl.db --stats night.json ` +
	`--cfetch '--cache-dir cache --cache-policy rfc9111' --cexport '--key url --changed-only'`

// outageSite is a site of three pages on a port of its own, which can be
// stopped (nothing listens: refused) and started again on the same port,
// or made to answer 503, or to disallow everything in its robots.txt.
type outageSite struct {
	t    *testing.T
	addr string

	mu   sync.Mutex
	srv  *http.Server
	mode string // "" (up), "503", "503-pages" (robots.txt aside), "disallow"
	hits []string
}

var outagePages = map[string]string{
	"/":       `<html><body><h1>Home</h1><a href="a.html">a</a> <a href="b.html">b</a></body></html>`,
	"/a.html": `<html><body><h1>A</h1></body></html>`,
	"/b.html": `<html><body><h1>B</h1></body></html>`,
}

// newOutageSite starts the site on a free port, which stays its own.
func newOutageSite(t *testing.T) *outageSite {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &outageSite{t: t, addr: ln.Addr().String()}
	s.serve(ln)
	t.Cleanup(s.stop)
	return s
}

func (s *outageSite) url() string { return "http://" + s.addr }

func (s *outageSite) serve(ln net.Listener) {
	srv := &http.Server{Handler: s}
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go srv.Serve(ln)
}

// stop closes the site's listener and connections: a connection to its
// port is refused.
func (s *outageSite) stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// start listens on the site's port again. The port may be taken by a
// connection the kernel still holds for a moment, so it tries until it
// gets it.
func (s *outageSite) start() {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ln, err := net.Listen("tcp", s.addr)
		if err == nil {
			s.serve(ln)
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the site could not listen on %s again: %v", s.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *outageSite) setMode(mode string) {
	s.mu.Lock()
	s.mode = mode
	s.mu.Unlock()
}

// requests returns how many requests the site answered so far.
func (s *outageSite) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hits)
}

// pagesSince returns the pages (robots.txt aside) asked for since the
// site had answered n requests.
func (s *outageSite) pagesSince(n int) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	for _, p := range s.hits[n:] {
		if p != "/robots.txt" {
			out[p] = true
		}
	}
	return out
}

func (s *outageSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	mode := s.mode
	s.hits = append(s.hits, r.URL.Path)
	s.mu.Unlock()
	robots := r.URL.Path == "/robots.txt"
	switch {
	case mode == "503" || mode == "503-pages" && !robots:
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	case robots && mode == "disallow":
		fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
	case outagePages[r.URL.Path] != "":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", fmt.Sprintf("%q", r.URL.Path))
		if r.Header.Get("If-None-Match") == fmt.Sprintf("%q", r.URL.Path) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, outagePages[r.URL.Path])
	default:
		http.NotFound(w, r)
	}
}

// outageNight is what the test reads of a night's --stats.
type outageNight struct {
	State    string   `json:"state"`
	Complete bool     `json:"complete"`
	Round    int      `json:"round"`
	Exit     *int     `json:"exit"`
	Reasons  []string `json:"reasons"`
	Items    struct {
		Exported int64 `json:"exported"`
		Gone     int64 `json:"gone"`
	} `json:"items"`
}

// outageCrawl is the crawl of an outageSite, one run a night.
type outageCrawl struct {
	t      *testing.T
	site   *outageSite
	l      *loop
	recipe string
}

func newOutageCrawl(t *testing.T, bin string) *outageCrawl {
	s := newOutageSite(t)
	l := &loop{t: t, url: s.url(), dir: t.TempDir(), bin: bin}
	l.writeFile("seeds.txt", s.url()+"/\n")
	l.writeFile("rules.yml", outageRules)
	return &outageCrawl{t: t, site: s, l: l, recipe: outageRecipe}
}

// night runs the crawl once, as cron does (with extra flags), requires
// its exit status and lines, and returns its --stats, which it removes
// first: each night's is its own.
func (c *outageCrawl) night(extra string, code int, lines ...string) (crawlRun, outageNight) {
	c.t.Helper()
	stats := filepath.Join(c.l.dir, "night.json")
	if err := os.Remove(stats); err != nil && !errors.Is(err, os.ErrNotExist) {
		c.t.Fatal(err)
	}
	r := c.l.runCrawl(c.recipe + extra)
	r.want(c.t, code, lines...)
	var n outageNight
	b, err := os.ReadFile(stats)
	if err == nil {
		err = json.Unmarshal(b, &n)
	}
	if err != nil {
		c.t.Fatalf("--stats of a run that exited %d: %v\n%s", r.code, err, r.stderr)
	}
	if n.Exit == nil || *n.Exit != r.code {
		c.t.Errorf("--stats says exit %v, the run exited %d", n.Exit, r.code)
	}
	return r, n
}

// round is the crawl's round and round_state, as cqueue info says.
func (c *outageCrawl) round() (int, string) {
	return c.l.roundOf("crawl.db", "items")
}

// wantAllPages requires that the site was asked for every page since it
// had answered n requests.
func (c *outageCrawl) wantAllPages(n int) {
	c.t.Helper()
	got := c.site.pagesSince(n)
	for p := range outagePages {
		if !got[p] {
			c.t.Errorf("%s was not fetched (fetched: %v)", p, got)
		}
	}
}

func TestCrawlAfterOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	bin := binDir(t)
	const refused = "cqueue: nothing could be fetched: every seed failed: refused 1\n"

	// The three nights: round 1, then the site down in round 2,
	// then back.
	t.Run("down_in_round_2", func(t *testing.T) {
		c := newOutageCrawl(t, bin)
		_, n := c.night("", 0, "cqueue: complete: nothing is left queued or in flight\n")
		if n.State != "complete" || n.Round != 1 || n.Items.Exported != 3 {
			t.Fatalf("night 1: %+v", n)
		}

		c.site.stop()
		_, n = c.night("", 1, `crawl "items": round 2 begins (round 1 was complete)`, refused,
			"cqueue: round 2 is not complete: the next run queues its seeds again and goes on with it\n")
		if n.State != "failed" || n.Complete || n.Round != 2 {
			t.Errorf("night 2 (the site down): %+v", n)
		}
		if round, state := c.round(); round != 2 || state != "running" {
			t.Errorf("after night 2, cqueue info says round %d %q, want round 2 running", round, state)
		}

		c.site.start()
		before := c.site.requests()
		r, n := c.night("", 0, `cqueue: crawl "items" round 2: its last run could fetch nothing (every seed failed: refused 1): 1 seed queued again`,
			"cqueue: seeds (seeds.txt): 1 queued (1 again)\n", "cqueue: complete: nothing is left queued or in flight\n")
		if strings.Contains(r.stderr, "begins") {
			t.Errorf("night 3 resumes round 2, and says a round begins:\n%s", r.stderr)
		}
		if n.State != "complete" || !n.Complete || n.Round != 2 || n.Items.Gone != 0 {
			t.Errorf("night 3 (the site back): %+v", n)
		}
		c.wantAllPages(before)
		if round, state := c.round(); round != 2 || state != "complete" {
			t.Errorf("after night 3, cqueue info says round %d %q, want round 2 complete", round, state)
		}

		// And the nights go on.
		c.night("", 0, `crawl "items": round 3 begins (round 2 was complete)`, "complete: nothing is left queued or in flight")
	})

	t.Run("down_in_round_1", func(t *testing.T) {
		c := newOutageCrawl(t, bin)
		c.site.stop()
		_, n := c.night("", 1, refused, "cqueue: round 1 is not complete: the next run queues its seeds again and goes on with it\n")
		if n.State != "failed" || n.Complete || n.Round != 1 {
			t.Errorf("night 1 (the site down): %+v", n)
		}
		c.site.start()
		_, n = c.night("", 0, `cqueue: crawl "items" round 1: its last run could fetch nothing (every seed failed: refused 1): 1 seed queued again`,
			"cqueue: complete: nothing is left queued or in flight\n")
		if n.State != "complete" || n.Round != 1 || n.Items.Exported != 3 {
			t.Errorf("night 2 (the site up): %+v", n)
		}
	})

	// A site that answers 503 to everything (robots.txt included, then
	// robots.txt aside) is down: no round is complete with nothing in it,
	// and no item is reported gone. (Without cfetch's cache, which
	// answers for a page the server fails with 5xx.)
	t.Run("503", func(t *testing.T) {
		c := newOutageCrawl(t, bin)
		c.recipe = `seeds.txt rules.yml items.jsonl --db crawl.db --stats night.json --cexport '--key url --changed-only'`
		c.night("", 0, "complete: nothing is left queued or in flight")
		c.site.setMode("503")
		_, n := c.night("", 1, "cqueue: nothing could be fetched: every seed failed: robots 1\n",
			"cqueue: round 2 is not complete: the next run queues its seeds again")
		if n.State != "failed" || n.Complete || n.Items.Gone != 0 {
			t.Errorf("night 2 (503, robots.txt too): %+v", n)
		}
		c.site.setMode("503-pages")
		_, n = c.night("", 1, "1 seed queued again", "cqueue: nothing could be fetched: every seed failed: status_503 1\n",
			"cqueue: round 2 is not complete: the next run queues its seeds again")
		if n.State != "failed" || n.Complete || n.Items.Gone != 0 {
			t.Errorf("night 3 (503): %+v", n)
		}
		c.site.setMode("")
		before := c.site.requests()
		_, n = c.night("", 0, "1 seed queued again", "complete: nothing is left queued or in flight")
		if n.State != "complete" || n.Round != 2 || n.Items.Gone != 0 {
			t.Errorf("night 4 (the site back): %+v", n)
		}
		c.wantAllPages(before)
		if b, err := os.ReadFile(filepath.Join(c.l.dir, "items.jsonl")); err != nil || strings.Contains(string(b), `"gone"`) {
			t.Errorf("items.jsonl (%v):\n%s", err, b)
		}
	})

	// robots.txt disallows the seed: a run again would be refused again.
	t.Run("disallowed", func(t *testing.T) {
		c := newOutageCrawl(t, bin)
		c.site.setMode("disallow")
		c.night("", 1, "cqueue: nothing could be fetched: every seed failed: robots 1\n",
			"the seeds are marked as seen in round 1: the cause would come back (it is not the site being down), so the next run does not fetch them again; once it is fixed, run the same command with --resume to fetch them again")
		before := c.site.requests()
		r, n := c.night("", 1, `cqueue: crawl "items" round 1 has nothing queued or in flight and its seeds were seen in it, but its last run could fetch nothing (every seed failed: robots 1), for a cause that would come back (not the site being down): once it is fixed, run the same command with --resume to fetch them again, or, to start the crawl over, remove crawl.db (or give another --crawlid)`)
		if got := c.site.requests() - before; got != 0 {
			t.Errorf("the run after the refusal made %d requests:\n%s", got, r.stderr)
		}
		if n.State != "failed" || len(n.Reasons) != 1 || !strings.Contains(n.Reasons[0], "its last run could fetch nothing") {
			t.Errorf("--stats of the run after the refusal: %+v", n)
		}
		c.site.setMode("")
		before = c.site.requests()
		c.night(" --resume", 0, "1 seed queued again", "complete: nothing is left queued or in flight")
		c.wantAllPages(before)
	})
}
