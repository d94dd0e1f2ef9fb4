package cextract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// TestCextractAndFrontierAgree feeds each link through cextract (a page
// whose request carries the crawl policy, --links, --rejects) and the
// follow-up cextract wrote for it, followed or rejected, through the
// frontier's push policy: both give the same verdict for the same reason.
func TestCextractAndFrontierAgree(t *testing.T) {
	t.Parallel()
	type crawl = map[string]any
	for _, tc := range []struct {
		name, page, href string
		req              crawl
		want             string // the reason, "" when followed
	}{
		{"tar.gz", "http://a.test/", "x.tar.gz", nil, policy.ReasonExtension},
		{"TAR.GZ", "http://a.test/", "x.TAR.GZ", nil, policy.ReasonExtension},
		{"gz alone", "http://a.test/", "x.gz", nil, ""},
		{"webp", "http://a.test/", "x.webp", nil, policy.ReasonExtension},
		{"pdf with a query", "http://a.test/", "x.pdf?download=1", nil, policy.ReasonExtension},
		{"pdf in the query only", "http://a.test/", "get?f=x.pdf", nil, ""},
		{"pdf with parameters", "http://a.test/", "x.pdf;jsessionid=1", nil, policy.ReasonExtension},
		{"html", "http://a.test/", "x.html", nil, ""},
		{"request's own extensions", "http://a.test/", "x.php", crawl{"deny_extensions": []string{"php"}}, policy.ReasonExtension},
		{"request's [] on html", "http://a.test/", "x.html", crawl{"deny_extensions": []string{}}, ""},

		{"on domain", "http://a.test/", "http://a.test/x", crawl{"allowed_domains": []string{"a.test"}}, ""},
		{"subdomain", "http://a.test/", "http://www.a.test/x", crawl{"allowed_domains": []string{"a.test"}}, ""},
		{"port", "http://a.test/", "http://www.a.test:8080/x", crawl{"allowed_domains": []string{"a.test"}}, ""},
		{"trailing dot", "http://a.test/", "http://www.a.test./x", crawl{"allowed_domains": []string{"a.test"}}, ""},
		{"domain with a trailing dot", "http://a.test/", "http://www.a.test/x", crawl{"allowed_domains": []string{"a.test."}}, ""},
		{"domain in capitals", "http://a.test/", "http://WWW.A.TEST/x", crawl{"allowed_domains": []string{"A.Test"}}, ""},
		{"suffix is not a subdomain", "http://a.test/", "http://ba.test/x", crawl{"allowed_domains": []string{"a.test"}}, policy.ReasonOffsite},
		{"offsite", "http://a.test/", "http://other.test/x", crawl{"allowed_domains": []string{"a.test"}}, policy.ReasonOffsite},
		{"offsite beats extension", "http://a.test/", "http://other.test/x.pdf", crawl{"allowed_domains": []string{"a.test"}}, policy.ReasonOffsite},

		{"straße.test, link in Unicode", "http://xn--strae-oqa.test/", "http://straße.test/x", crawl{"allowed_domains": []string{"straße.test"}}, ""},
		{"straße.test, relative link", "http://xn--strae-oqa.test/", "/x", crawl{"allowed_domains": []string{"straße.test"}}, ""},
		{"straße.test, subdomain", "http://xn--strae-oqa.test/", "http://www.straße.test/x", crawl{"allowed_domains": []string{"straße.test"}}, ""},
		{"straße.test, IDNA 2003 host", "http://strasse.test/", "/x", crawl{"allowed_domains": []string{"straße.test"}}, ""},
		{"xn-- by hand, link in Unicode", "http://xn--strae-oqa.test/", "http://straße.test/x", crawl{"allowed_domains": []string{"xn--strae-oqa.test"}}, ""},
		{"xn-- by hand, IDNA 2003 host", "http://strasse.test/", "/x", crawl{"allowed_domains": []string{"xn--strae-oqa.test"}}, ""},
		{"bücher.example", "http://xn--bcher-kva.example/", "http://bücher.example/x", crawl{"allowed_domains": []string{"bücher.example"}}, ""},
		{"bücher.example, punycode link", "http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/x", crawl{"allowed_domains": []string{"BÜCHER.example"}}, ""},
		{"bücher.example is not buecher", "http://xn--bcher-kva.example/", "http://buecher.example/x", crawl{"allowed_domains": []string{"bücher.example"}}, policy.ReasonOffsite},
		{"IDN offsite", "http://xn--strae-oqa.test/", "http://xn--strae-oqa.test.evil/x", crawl{"allowed_domains": []string{"straße.test"}}, policy.ReasonOffsite},

		{"within maxdepth", "http://a.test/", "x", crawl{"depth": 1, "maxdepth": 2}, ""},
		{"beyond maxdepth", "http://a.test/", "x", crawl{"depth": 2, "maxdepth": 2}, policy.ReasonMaxDepth},
		{"maxdepth beats offsite", "http://a.test/", "http://other.test/", crawl{"depth": 2, "maxdepth": 2, "allowed_domains": []string{"a.test"}}, policy.ReasonMaxDepth},
		{"allow_regex", "http://a.test/", "item/1", crawl{"allow_regex": []string{`/item/\d+`}}, ""},
		{"not allowed", "http://a.test/", "about", crawl{"allow_regex": []string{`/item/\d+`}}, policy.ReasonNotAllowed},
		{"denied", "http://a.test/", "logout", crawl{"deny_regex": []string{`logout`}}, policy.ReasonDenied},
		{"denied beats extension", "http://a.test/", "logout.pdf", crawl{"deny_regex": []string{`logout`}}, policy.ReasonDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := crawl{"url": tc.page, "crawlid": "c"}
			for k, v := range tc.req {
				req[k] = v
			}
			rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
			in := response(t, tc.page, `<a href="`+tc.href+`">x</a>`, req, map[string]any{"headers": map[string]string{"content-type": "text/html"}})
			out, stderr, code := run(t, in+"\n", "-q", "--links", "--rejects", rejects)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rejected, err := os.ReadFile(rejects)
			if err != nil {
				t.Fatal(err)
			}
			var line, got string
			for _, l := range strings.Split(out+string(rejected), "\n") {
				if strings.HasPrefix(l, `{"kind":"request"`) {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("cextract wrote no request for %s:\n%s%s", tc.href, out, rejected)
			}
			var child record.Request
			if err := record.Decode([]byte(line), &child); err != nil {
				t.Fatal(err)
			}
			if r, ok := child.Extra["reason"]; ok {
				got = strings.Trim(string(r), `"`)
			}
			if got != tc.want {
				t.Errorf("cextract: %q for %s, want %q", got, line, tc.want)
			}
			if reason, detail := (frontier.Policy{}).Explain(&child, time.Now()); reason != tc.want {
				t.Errorf("frontier: %q (%s) for %s, want %q", reason, detail, line, tc.want)
			}
		})
	}
}

// TestSitemapEntriesAgreeWithTheFrontier: the URLs a sitemap lists are
// held to the request's own deny_extensions only, not to Scrapy's default
// list, by cextract and by the frontier alike, as SitemapSpider requests
// every URL a sitemap gives: a PDF a sitemap lists, an RSS feed a
// robots.txt names as its sitemap. cqueue push dropped them (extension),
// which cextract had written.
func TestSitemapEntriesAgreeWithTheFrontier(t *testing.T) {
	t.Parallel()
	rulesFile := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(rulesFile, []byte("sitemaps:\n  - name: s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	robotsTxt := map[string]any{"headers": map[string]string{"content-type": "text/plain"}}
	xml := map[string]any{"headers": map[string]string{"content-type": "application/xml"}}
	for _, tc := range []struct {
		name, page, body string
		opts             map[string]any
		req              map[string]any
		want             string
	}{
		{"a feed robots.txt names", "http://a.test/robots.txt", "Sitemap: http://a.test/feed.rss\n", robotsTxt, nil, ""},
		{"a PDF a sitemap lists", "http://a.test/sitemap.xml", "<urlset><url><loc>http://a.test/doc.pdf</loc></url></urlset>", xml, nil, ""},
		{"a sitemap an index lists", "http://a.test/sitemap.xml", "<sitemapindex><sitemap><loc>http://a.test/s.rss</loc></sitemap></sitemapindex>", xml, nil, ""},
		{"the request's own deny_extensions", "http://a.test/sitemap.xml", "<urlset><url><loc>http://a.test/doc.pdf</loc></url></urlset>", xml, map[string]any{"deny_extensions": []string{"pdf"}}, policy.ReasonExtension},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := map[string]any{"url": tc.page, "crawlid": "c"}
			for k, v := range tc.req {
				req[k] = v
			}
			rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
			out, stderr, code := run(t, response(t, tc.page, tc.body, req, tc.opts)+"\n", "-q", "-r", rulesFile, "--rejects", rejects)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rejected, err := os.ReadFile(rejects)
			if err != nil {
				t.Fatal(err)
			}
			var line string
			for _, l := range strings.Split(out+string(rejected), "\n") {
				if strings.HasPrefix(l, `{"kind":"request"`) {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("cextract wrote no request:\n%s%s", out, rejected)
			}
			var child record.Request
			if err := record.Decode([]byte(line), &child); err != nil {
				t.Fatal(err)
			}
			got := ""
			if r, ok := child.Extra["reason"]; ok {
				got = strings.Trim(string(r), `"`)
			}
			if got != tc.want {
				t.Errorf("cextract: %q for %s, want %q", got, line, tc.want)
			}
			if reason, detail := (frontier.Policy{}).Explain(&child, time.Now()); reason != tc.want {
				t.Errorf("frontier: %q (%s) for %s, want %q", reason, detail, line, tc.want)
			}
		})
	}
}
