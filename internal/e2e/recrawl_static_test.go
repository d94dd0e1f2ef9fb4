package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage"
)

// docs/cron.md's recipe against a plain static file server, as users run
// it on a documentation tree: http.FileServer sends Last-Modified from the
// files' mtimes (years old) and no Cache-Control, so a cache that trusts
// heuristic freshness (a tenth of the page's age) would answer every page
// of round 2 itself. A round asks the server for every page; the edited
// titles and the new page are exported, the deleted page's item is
// reported gone, and "unchanged" counts the 304s the server sent.

// staticRules extracts each page's title and follows every .html link.
const staticRules = `version: 1
name: docs
items:
  - name: page
    fields:
      url: '@url'
      title: {css: title, required: true}
links:
  - name: pages
    allow: '\.html$'
`

// staticRecipe is docs/cron.md's command (without -q: the account is read).
const staticRecipe = `seeds.txt rules.yml 'sqlite:docs.db?table=pages' --db crawl.db --stats round.json ` +
	`--cfetch '--cache-dir cache --cache-policy rfc9111' --cexport '--key url --changed-only --history'`

// staticHit is one request the static server answered.
type staticHit struct {
	path        string
	conditional bool // it had If-Modified-Since or If-None-Match
	status      int
}

// staticServer serves dir with http.FileServer and records each request.
type staticServer struct {
	mu   sync.Mutex
	hits []staticHit
	// hold, when set, holds the requests for its path until it is closed;
	// held is told of each.
	hold     chan struct{}
	holdPath string
	held     chan string
}

func (s *staticServer) handler(dir string) http.Handler {
	fs := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		hold := s.hold
		if r.URL.Path != s.holdPath {
			hold = nil
		}
		s.mu.Unlock()
		if hold != nil {
			s.held <- r.URL.Path
			<-hold
		}
		sw := &statusWriter{ResponseWriter: w, status: 200}
		fs.ServeHTTP(sw, r)
		s.mu.Lock()
		s.hits = append(s.hits, staticHit{r.URL.Path, r.Header.Get("If-Modified-Since") != "" || r.Header.Get("If-None-Match") != "", sw.status})
		s.mu.Unlock()
	})
}

func (s *staticServer) since(n int) []staticHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hits[n:])
}

func (s *staticServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hits)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// docPage is an HTML page with a title and links.
func docPage(title string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1>\n", title, title)
	for _, l := range links {
		fmt.Fprintf(&b, "<p><a href=\"%s\">%s</a></p>\n", l, l)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// staticCrawl is a static documentation tree, its server and a crawl of it.
type staticCrawl struct {
	t     *testing.T
	site  string
	srv   *staticServer
	l     *loop
	url   string
	write func(name, content string, mtime time.Time)
}

// pages are the URLs of the pages named, sorted.
func (s *staticCrawl) pages(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, s.url+"/"+strings.TrimSuffix(n, "index.html"))
	}
	sort.Strings(out)
	return out
}

// edit changes the tree between rounds: a title is edited (a new mtime,
// as an editor gives), a page is added and linked from another, which is
// edited too (its title stays), a page is deleted and its link removed.
func (s *staticCrawl) edit() {
	s.write("install.html", docPage("Installing crawlutils"), time.Time{})
	s.write("usage.html", docPage("Usage", "install.html", "advanced.html"), time.Time{})
	s.write("advanced.html", docPage("Advanced usage"), time.Time{})
	s.write("index.html", docPage("Documentation", "intro.html", "install.html", "usage.html"), time.Time{})
	if err := os.Remove(filepath.Join(s.site, "faq.html")); err != nil {
		s.t.Fatal(err)
	}
}

// newStaticCrawl serves a tree of five pages, all last modified in 2019,
// and crawls it once (round 1).
func newStaticCrawl(t *testing.T) *staticCrawl {
	bin := binDir(t)
	site := t.TempDir()
	old := time.Date(2019, 3, 14, 9, 26, 53, 0, time.UTC)
	write := func(name, content string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(site, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if !mtime.IsZero() {
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("index.html", docPage("Documentation", "intro.html", "install.html", "usage.html", "faq.html"), old)
	write("intro.html", docPage("Introduction"), old)
	write("install.html", docPage("Installing"), old)
	write("usage.html", docPage("Usage", "install.html"), old)
	write("faq.html", docPage("FAQ"), old)

	srv := &staticServer{}
	ts := httptest.NewServer(srv.handler(site))
	t.Cleanup(ts.Close)
	l := &loop{t: t, url: ts.URL, dir: t.TempDir(), bin: bin}
	l.writeFile("seeds.txt", ts.URL+"/\n")
	l.writeFile("rules.yml", staticRules)
	s := &staticCrawl{t: t, site: site, srv: srv, l: l, url: ts.URL, write: write}

	r := l.runCrawl(staticRecipe)
	r.want(t, 0, "complete: nothing is left queued or in flight")
	hist := readDocRows(t, filepath.Join(l.dir, "docs.db"), "pages_history")
	if got, want := changesOf(hist, "new"), s.pages("index.html", "intro.html", "install.html", "usage.html", "faq.html"); !slices.Equal(got, want) {
		t.Fatalf("round 1: history new %q, want %q", got, want)
	}
	return s
}

func TestRecrawlStaticSite(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	s := newStaticCrawl(t)
	l, srv, pages := s.l, s.srv, s.pages
	s.edit()

	before := srv.count()
	r := l.runCrawl(staticRecipe)
	r.want(t, 0, "round 2 begins", "complete: nothing is left queued or in flight")
	asked := map[string]staticHit{}
	notModified := 0
	for _, h := range srv.since(before) {
		if h.path == "/robots.txt" {
			continue
		}
		asked[h.path] = h
		if h.status == http.StatusNotModified {
			notModified++
		}
	}
	// Every page of round 1 still there was asked of the server, with a
	// conditional request; the new one too.
	for _, p := range []string{"/", "/intro.html", "/install.html", "/usage.html"} {
		if h, ok := asked[p]; !ok || !h.conditional {
			t.Errorf("round 2: %s asked %v, conditionally %v", p, ok, h.conditional)
		}
	}
	if h := asked["/intro.html"]; h.status != http.StatusNotModified {
		t.Errorf("round 2: the unchanged page answered %d, want 304", h.status)
	}
	if _, ok := asked["/advanced.html"]; !ok {
		t.Errorf("round 2: the new page was not fetched")
	}

	// The history: the edited title, the new page, the deleted page gone.
	hist := readDocRows(t, filepath.Join(l.dir, "docs.db"), "pages_history")
	var round2 []docRow
	for _, h := range hist {
		if h.round == 2 {
			round2 = append(round2, h)
		}
	}
	if got, want := changesOf(round2, "changed"), pages("install.html"); !slices.Equal(got, want) {
		t.Errorf("round 2: history changed %q, want %q", got, want)
	}
	if got, want := changesOf(round2, "new"), pages("advanced.html"); !slices.Equal(got, want) {
		t.Errorf("round 2: history new %q, want %q", got, want)
	}
	if got, want := changesOf(round2, "gone"), pages("faq.html"); !slices.Equal(got, want) {
		t.Errorf("round 2: history gone %q, want %q", got, want)
	}
	for _, h := range round2 {
		if h.url == s.url+"/install.html" && h.title != "Installing crawlutils" {
			t.Errorf("round 2: the edited page's title is %q", h.title)
		}
	}

	// The account: unchanged counts the 304s, and the gone item.
	acct := l.readAccount("round.json")
	var full struct {
		Pages struct {
			Unchanged int64 `json:"unchanged"`
			FromCache int64 `json:"from_cache"`
		} `json:"pages"`
		Items struct {
			Gone int64 `json:"gone"`
		} `json:"items"`
	}
	readJSONFile(t, filepath.Join(l.dir, "round.json"), &full)
	if acct.State != "complete" || full.Pages.Unchanged != int64(notModified) || full.Pages.FromCache != 0 || full.Items.Gone != 1 {
		t.Errorf("round 2: state %s, pages unchanged %d (the server sent %d 304s), from cache %d, items gone %d",
			acct.State, full.Pages.Unchanged, notModified, full.Pages.FromCache, full.Items.Gone)
	}
	pages304 := fmt.Sprintf("%d pages", notModified)
	if notModified == 1 {
		pages304 = "1 page"
	}
	r.want(t, 0, pages304+" unchanged since the last round (304:", "1 item gone since the last round")

	// A third round with nothing changed: nothing new, nothing gone again.
	r = l.runCrawl(staticRecipe)
	r.want(t, 0, "round 3 begins", "complete: nothing is left queued or in flight")
	hist3 := readDocRows(t, filepath.Join(l.dir, "docs.db"), "pages_history")
	if len(hist3) != len(hist) {
		t.Errorf("round 3 added history rows: %+v", hist3[len(hist):])
	}
}

// docRow is a row of the history table of the static site's crawl.
type docRow struct {
	url, title, change string
	round              int
}

func readDocRows(t *testing.T, path, table string) []docRow {
	t.Helper()
	db, err := storage.OpenDB(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT url, coalesce(title, ''), change, round FROM " + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []docRow
	for rows.Next() {
		var r docRow
		if err := rows.Scan(&r.url, &r.title, &r.change, &r.round); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// changesOf lists the URLs of the rows of change ch, sorted.
func changesOf(rows []docRow, ch string) []string {
	var out []string
	for _, r := range rows {
		if r.change == ch {
			out = append(out, r.url)
		}
	}
	sort.Strings(out)
	return out
}

// TestRecrawlInterruptedRoundGoneNothing: a round interrupted (Ctrl-C)
// declares nothing gone, though the deleted page's item was not seen; the
// run that completes the round does.
func TestRecrawlInterruptedRoundGoneNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	s := newStaticCrawl(t)
	l, srv := s.l, s.srv
	s.edit()
	hold := make(chan struct{})
	srv.mu.Lock()
	srv.hold, srv.holdPath, srv.held = hold, "/intro.html", make(chan string, 10)
	srv.mu.Unlock()

	c, stdout, stderr := l.startCrawl(staticRecipe)
	select {
	case <-srv.held:
	case <-time.After(2 * time.Minute):
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		t.Fatal("round 2 never asked for /intro.html")
	}
	syscall.Kill(-c.Process.Pid, syscall.SIGINT) // every process, as a terminal does
	close(hold)
	r := l.wait(c, stdout, stderr)
	r.want(t, 130, "interrupted")
	if strings.Contains(r.stderr, "gone") {
		t.Errorf("the interrupted round declared items gone:\n%s", r.stderr)
	}
	hist := readDocRows(t, filepath.Join(l.dir, "docs.db"), "pages_history")
	if got := changesOf(hist, "gone"); len(got) > 0 {
		t.Errorf("after the interrupted round: history gone %q", got)
	}

	r = l.runCrawl(staticRecipe)
	r.want(t, 0, "complete: nothing is left queued or in flight", "1 item gone since the last round")
	hist = readDocRows(t, filepath.Join(l.dir, "docs.db"), "pages_history")
	if got, want := changesOf(hist, "gone"), s.pages("faq.html"); !slices.Equal(got, want) {
		t.Errorf("after the round completed: history gone %q, want %q", got, want)
	}
}
