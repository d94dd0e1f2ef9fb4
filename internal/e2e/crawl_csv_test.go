package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrawlCSVHasEveryDeclaredField: cqueue crawl SEEDS RULES out.csv over
// pages where the first item lacks an optional field (git's docs: most
// pages have no examples) writes a header with every field the rules
// declare, and the field where a page has it; a field the rules do not
// declare (added with cextract -f) is an error the account shows, never
// silently left out.
func TestCrawlCSVHasEveryDeclaredField(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	pages := map[string]string{
		"/":       `<h1>Home</h1><a href="/a.html">a</a> <a href="/b.html">b</a>`,
		"/a.html": `<h1>A</h1><a href="/b.html">b</a>`,
		"/b.html": `<h1>B</h1><pre class="example">git log</pre><pre class="example">git add</pre>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><html><body>" + body + "</body></html>"))
	}))
	t.Cleanup(srv.Close)
	const rules = `items:
  - name: page
    fields:
      url: '@url'
      title: h1
      examples: {css: pre.example, all: true}
links:
  - allow: '\.html$'
`
	newDir := func() *loop {
		l := &loop{t: t, url: srv.URL, dir: t.TempDir(), bin: binDir(t)}
		l.writeFile("seeds.txt", srv.URL+"/\n")
		l.writeFile("rules.yml", rules)
		return l
	}
	// cqueue crawl hands the rules to cexport: the header is complete.
	l := newDir()
	r := l.runCrawl(`--stats acct.json seeds.txt rules.yml out.csv`)
	r.want(t, 0, "cqueue: 3 items exported to out.csv\n", "complete: nothing is left queued or in flight")
	got, err := os.ReadFile(filepath.Join(l.dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "url,title,examples" || lines[1] != srv.URL+"/,Home," {
		t.Fatalf("out.csv:\n%s", got)
	}
	if !strings.Contains(string(got), srv.URL+`/b.html,B,"[""git log"",""git add""]"`+"\n") {
		t.Errorf("out.csv lacks b.html's examples:\n%s", got)
	}

	// A field the rules file does not declare: each item is reported,
	// the account says how many, the exit status is 3.
	l = newDir()
	r = l.runCrawl(`--stats acct.json --cextract '-f h=h1 --type page' seeds.txt rules.yml out.csv`)
	r.want(t, 3, `field "h" is not in the header (the fields of rules.yml): written without it; declare it in rules.yml`,
		"cqueue: 3 items exported to out.csv (3 written without fields not in its header, reported above)\n")
	acct, err := os.ReadFile(filepath.Join(l.dir, "acct.json"))
	if err != nil || !strings.Contains(string(acct), `"not_in_header": 3`) {
		t.Errorf("--stats account (%v):\n%s", err, acct)
	}
}
