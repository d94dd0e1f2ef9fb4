package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// TestCrawlThroughEveryKindOfLink: a site whose pages are reached only
// through a <link rel=next>, a GET form and a Link header is crawled to
// the end by a link rule with kinds: [navigation, forms]; a rule without
// kinds (navigation, the default) reaches the second page through the
// <link rel=next> but not the form's search nor the page its Link header
// leads to; a rule with tags: [a, area] (Scrapy's default) gets the home
// page alone (issue 30).
func TestCrawlThroughEveryKindOfLink(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case r.URL.Path == "/":
			fmt.Fprint(w, `<html><head><link rel="next" href="/second"></head><h1>home</h1></html>`)
		case r.URL.Path == "/second":
			fmt.Fprint(w, `<html><h1>second</h1><form action="/search"><input name="q" value="tea"><input type="submit" value="Go"></form></html>`)
		case r.URL.Path == "/search" && r.URL.RawQuery == "q=tea":
			w.Header().Set("Link", `</last>; rel="next"`)
			fmt.Fprint(w, `<html><h1>search</h1></html>`)
		case r.URL.Path == "/last":
			fmt.Fprint(w, `<html><h1>last</h1></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, c := range []struct{ name, rule, want string }{
		{"kinds", "    kinds: [navigation, forms]\n", "home last search second title"},
		{"default", "", "home second title"},
		{"tags", "    tags: [a, area]\n", "home title"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newCrawlSite(t, bin, loopSite)
			l.writeFile("seeds.txt", srv.URL+"/\n")
			l.writeFile("rules.yml", "version: 1\nitems:\n  - name: page\n    fields:\n      title: {css: h1, required: true}\nlinks:\n  - name: site\n"+c.rule)
			r := l.runCrawl(`seeds.txt rules.yml pages.csv`)
			r.want(t, 0, "complete: nothing is left queued or in flight")
			out := l.run("sort pages.csv")
			if got := strings.Join(strings.Fields(out), " "); got != c.want {
				t.Errorf("pages.csv has %q, want %q", got, c.want)
			}
		})
	}
}

// TestCrawlLinkBed: cqueue crawl of the demo site's link test bed
// (demosite.LinkBed, one page per case). With kinds: [all] and post_forms
// every case's target is fetched exactly once, but for the ones robots.txt
// disallows: discovered, counted as robots drops, never fetched. The
// default rule (no kinds: navigation) fetches every navigation target and
// nothing of the other kinds.
func TestCrawlLinkBed(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	for _, c := range []struct{ name, rule string }{
		{"all", "    kinds: [all]\n    post_forms: true\n"},
		{"default", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newCrawlSite(t, bin, loopSite)
			l.writeFile("seeds.txt", l.url+"/linkbed/\n")
			l.writeFile("rules.yml", "version: 1\nitems:\n  - name: page\n    fields:\n      title: {css: title, required: true}\nlinks:\n  - name: bed\n"+c.rule)
			r := l.runCrawl(`--stats acct.json seeds.txt rules.yml pages.jsonl`)
			r.want(t, 0, "complete: nothing is left queued or in flight")
			fetched := l.site.BedFetched()
			robots := 0
			for _, bc := range demosite.LinkBed() {
				key := bc.Target
				if bc.Method != "" {
					key = bc.Method + " " + key
				}
				want := 1
				switch {
				case bc.Robots:
					want = 0
					if c.name == "all" || bc.Kind == "navigation" {
						robots++
					}
				case c.name == "default" && bc.Kind != "navigation":
					want = 0
				}
				if fetched[key] != want {
					t.Errorf("case %s (%s %s) %s: fetched %d times, want %d", bc.Case, bc.Kind, bc.Source, key, fetched[key], want)
				}
			}
			var acct struct {
				Pages struct {
					Errors map[string]int `json:"errors"`
				} `json:"pages"`
			}
			b, err := os.ReadFile(filepath.Join(l.dir, "acct.json"))
			if err == nil {
				err = json.Unmarshal(b, &acct)
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := acct.Pages.Errors["robots"]; robots < 1 || n != robots {
				t.Errorf("the account's pages.errors.robots is %d, want the bed's %d robots cases (%s)", n, robots, b)
			}
		})
	}
}
