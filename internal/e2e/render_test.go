package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/render"
)

// needChromium fails the test, with the command that installs it, when
// no Chromium is found (the integration tier does not skip it).
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := render.FindBrowser(""); err != nil {
		t.Fatalf("%v\n\tinstall it with: apt-get install -y chromium-headless-shell", err)
	}
}

// jsCrawl crawls the demo site's JavaScript shop (/js/) to its end with
// the loop, cfetch run with fetchFlags and cextract with rules (a rules
// file's path), and returns the exported items as the demo site's
// JSProduct (absolute URLs made paths).
func jsCrawl(t *testing.T, l *loop, fetchFlags, rules string) []demosite.JSProduct {
	t.Helper()
	l.run(`echo "$SITE/js/" | cqueue push -q $DB --crawlid js`)
	l.run(`set -o pipefail; cqueue pop -q $DB --follow --window 16 --lease 1m | cfetch -q ` + fetchFlags + ` |
		cextract -q -r ` + rules + ` | cexport -q -o "$W/items.jsonl" | cqueue push -q $DB`)
	var got []demosite.JSProduct
	f, err := os.Open(filepath.Join(l.dir, "items.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p demosite.JSProduct
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("items.jsonl: %v: %s", err, sc.Text())
		}
		p.URL = strings.TrimPrefix(p.URL, l.url)
		got = append(got, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// jsRules is the JavaScript shop's rules file.
var jsRules = func() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "../../testdata/rules/demo-js.yml")
}()

// sortJS sorts products as demosite.JSTruth does.
func sortJS(ps []demosite.JSProduct) {
	slices.SortFunc(ps, func(a, b demosite.JSProduct) int {
		if c := strings.Compare(a.URL, b.URL); c != 0 {
			return c
		}
		return strings.Compare(a.UPC, b.UPC)
	})
}

// TestJSShopRendered: the demo site's JavaScript shop (an inline script,
// a fetch() of JSON, a client-side router, a "load more" button) crawled
// by the loop with cfetch --render and the demo's render script yields
// exactly its ground truth; the same loop without --render fetches the
// same pages and extracts no product at all (issue 29).
func TestJSShopRendered(t *testing.T) {
	needChromium(t)
	bin := binDir(t)
	wd, _ := os.Getwd()
	script := filepath.Join(wd, "../../testdata/rules/demo-js-more.js")

	l := newCrawlSite(t, bin, loopSite)
	l.db = "--db " + filepath.Join(l.dir, "crawl.db")
	got := jsCrawl(t, l, "--render --render-wait css:html.ready --render-timeout 1m --render-script "+script, jsRules)
	sortJS(got)
	want := l.site.JSTruth()
	if !slices.Equal(got, want) {
		t.Errorf("rendered crawl: %d items, want the %d of the truth", len(got), len(want))
		for _, p := range got {
			if !slices.Contains(want, p) {
				t.Errorf("  extra or wrong: %+v", p)
			}
		}
		for _, p := range want {
			if !slices.Contains(got, p) {
				t.Errorf("  missing: %+v", p)
			}
		}
	}

	plain := newCrawlSite(t, bin, loopSite)
	plain.db = "--db " + filepath.Join(plain.dir, "crawl.db")
	// Without the link rule's render: true, which would render the pages
	// without --render.
	b, err := os.ReadFile(jsRules)
	if err != nil {
		t.Fatal(err)
	}
	unrendered := strings.Replace(string(b), "\n    render: true\n", "\n", 1)
	if unrendered == string(b) {
		t.Fatalf("%s: no render: true line to take out", jsRules)
	}
	plainRules := filepath.Join(plain.dir, "demo-js-unrendered.yml")
	if err := os.WriteFile(plainRules, []byte(unrendered), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := jsCrawl(t, plain, "", plainRules); len(got) != 0 {
		t.Errorf("unrendered crawl: %d items, want none (the products are built by scripts): %+v", len(got), got)
	}
	if n := plain.site.Hits()["/js/inline.html"]; n != 1 {
		t.Errorf("unrendered crawl fetched /js/inline.html %d times, want once", n)
	}
}
