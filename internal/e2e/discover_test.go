package e2e

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// TestCrawlDiscoversRobotsSitemaps: with rules that follow no link, the
// demo shop's products are reachable only from the sitemaps its robots.txt
// names. cqueue crawl --discover robots crawls every one (robots.txt's
// Sitemap: line → the sitemap index → the product sitemaps → the pages,
// through the rules' sitemap rule); without --discover the crawl is the
// home page alone, and no sitemap is asked for (issue 30, point 3).
func TestCrawlDiscoversRobotsSitemaps(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	const rules = `version: 1
items:
  - name: product
    match: {url: '/catalogue/[^/]+_\d+/$'}
    fields:
      title: {css: div.product_main h1, required: true}
sitemaps:
  - follow: sitemap-products
    allow: '/catalogue/'
`
	for _, c := range []struct {
		name, flags string
		products    bool
	}{
		{"without", "", false},
		{"robots", "--discover robots", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newCrawlSite(t, bin, demosite.Options{Products: 40})
			l.writeFile("seeds.txt", l.url+"/\n")
			l.writeFile("rules.yml", rules)
			r := l.runCrawl(`--failures failures.jsonl seeds.txt rules.yml products.csv ` + c.flags)
			r.want(t, 0, "complete: nothing is left queued or in flight")
			want := 0
			if c.products {
				want = len(l.site.Truth())
			}
			lines := strings.TrimSpace(l.run(`wc -l < products.csv 2>/dev/null || echo 0`))
			n, _ := strconv.Atoi(lines)
			if n > 0 {
				n-- // the header
			}
			if n != want {
				t.Errorf("products.csv has %d products, want %d\n%s", n, want, r.stderr)
			}
			hits := l.site.Hits()
			if c.products {
				// Asked for once, through robots.txt's Sitemap: line;
				// robots.txt by cfetch's robots rules and once as a page.
				if hits["/sitemap.xml"] != 1 || hits["/robots.txt"] != 2 {
					t.Errorf("sitemap.xml asked %d times, robots.txt %d: want 1 and 2", hits["/sitemap.xml"], hits["/robots.txt"])
				}
			} else if hits["/sitemap.xml"] != 0 {
				t.Errorf("sitemap.xml asked %d times without --discover", hits["/sitemap.xml"])
			}
			if f := l.run(`cat failures.jsonl`); strings.Contains(f, "robots.txt") || strings.Contains(f, "sitemap") {
				t.Errorf("discovered files listed as failures:\n%s", f)
			}
		})
	}
}
