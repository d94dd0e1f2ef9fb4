package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
)

// TestIDNCrawlToTheEnd: a crawl of an IDN site whose allowed_domains is
// written in Unicode ("straße.test") follows its links to the end. cextract
// writes the links' hosts as browsers do (UTS #46: xn--strae-oqa.test) and
// the frontier judged allowed_domains in IDNA 2003's form (strasse.test):
// every link was dropped at push as offsite, the crawl "complete" with the
// seed alone.
func TestIDNCrawlToTheEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	for _, domain := range []string{"straße.test", "bücher.example", "xn--strae-oqa.test"} {
		t.Run(domain, func(t *testing.T) {
			var port string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				page := strings.Trim(r.URL.Path, "/")
				if page == "" {
					page = "home"
				}
				// Links written in Unicode, absolute and relative.
				fmt.Fprintf(w, `<html><h1>%s</h1><a href="http://%s:%s/a">a</a> <a href="/b">b</a> <a href="c">c</a></html>`, page, domain, port)
			}))
			defer srv.Close()
			port = srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
			l := newCrawlSite(t, bin, loopSite)
			l.writeFile("seeds.txt", fmt.Sprintf(`{"url":"http://%s:%s/","allowed_domains":[%q]}`+"\n", domain, port, domain))
			l.writeFile("rules.yml", "version: 1\nitems:\n  - name: page\n    fields:\n      title: {css: h1, required: true}\nlinks:\n  - name: all\n    allow: '.'\n")
			r := l.runCrawl(`seeds.txt rules.yml pages.csv --cfetch '--resolve *:` + port + `:127.0.0.1'`)
			r.want(t, 0, "complete: nothing is left queued or in flight")
			out := l.run("sort pages.csv")
			if got := strings.Fields(out); strings.Join(got, " ") != "a b c home title" {
				t.Errorf("pages.csv has %q, want the four pages", got)
			}
		})
	}
}
