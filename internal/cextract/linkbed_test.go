package cextract

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// bedCase is one way a page, its headers or a stylesheet points at a URL:
// the test bed (testdata/linkbed) gives each its own target.
type bedCase struct {
	url, kind, source string
	method            string // POST for a POST form
}

// linkBed lists every case of testdata/linkbed (page.html served with the
// headers of bedHeaders, frames.html, style.css as text/css), with the
// kind and source cextract --links --kinds all must give it. The page's
// <base href="/base/"> applies to everything in it (t/23, the srcdoc's
// t/56); the headers resolve against the page URL.
var linkBed = []bedCase{
	// navigation
	{"/t/01", "navigation", "a@href", ""},
	{"/t/02", "navigation", "area@href", ""},
	{"/t/03", "navigation", "a@xlink:href", ""},
	{"/t/04", "navigation", "a@href", ""}, // SVG 2 href
	{"/t/05", "navigation", "frame@src", ""},
	{"/t/06", "navigation", "iframe@src", ""},
	{"/t/07", "navigation", "iframe@longdesc", ""},
	{"/t/08", "navigation", "img@longdesc", ""},
	{"/t/09", "navigation", "link@href", ""}, // rel=next
	{"/t/10", "navigation", "link@href", ""}, // rel=prev
	{"/t/11", "navigation", "link@href", ""}, // rel=alternate
	{"/t/12", "navigation", "link@href", ""}, // rel=canonical
	{"/t/13", "navigation", "meta@refresh", ""},
	{"/t/14", "navigation", "blockquote@cite", ""},
	{"/t/15", "navigation", "q@cite", ""},
	{"/t/16", "navigation", "del@cite", ""},
	{"/t/17", "navigation", "ins@cite", ""},
	{"/t/18", "navigation", "header:Link", ""}, // rel=next
	{"/t/19", "navigation", "header:Refresh", ""},
	{"/t/20", "navigation", "header:Content-Location", ""},
	{"/t/21", "navigation", "meta@content", ""}, // og:url
	{"/t/22", "navigation", "a@href", ""},       // inside <noscript>
	{"/base/t/23", "navigation", "a@href", ""},  // relative, against <base href>
	{"/t/69", "navigation", "frame@src", ""},
	// resources
	{"/t/24", "resources", "img@src", ""},
	{"/t/25a", "resources", "img@srcset", ""},
	{"/t/25b", "resources", "img@srcset", ""},
	{"/t/26", "resources", "source@srcset", ""},
	{"/t/27", "resources", "video@src", ""},
	{"/t/28", "resources", "video@poster", ""},
	{"/t/29", "resources", "audio@src", ""},
	{"/t/30", "resources", "source@src", ""},
	{"/t/31", "resources", "track@src", ""},
	{"/t/32", "resources", "embed@src", ""},
	{"/t/33", "resources", "object@data", ""},
	{"/t/34", "resources", "param@value", ""},
	{"/t/35", "resources", "script@src", ""},
	{"/t/36", "resources", "link@href", ""}, // rel=stylesheet
	{"/t/37", "resources", "link@href", ""}, // rel=icon
	{"/t/38", "resources", "link@imagesrcset", ""},
	{"/t/39", "resources", "link@href", ""}, // rel=manifest
	{"/t/40", "resources", "html@manifest", ""},
	{"/t/41", "resources", "body@background", ""},
	{"/t/42", "resources", "td@background", ""},
	{"/t/43", "resources", "input@src", ""}, // type=image
	{"/t/44", "resources", "img@lowsrc", ""},
	{"/t/45", "resources", "a@ping", ""},
	{"/t/46", "resources", "style css:url", ""},
	{"/t/47", "resources", "style css:@import", ""},
	{"/t/48", "resources", "div@style css:url", ""},
	{"/t/49", "resources", "image@href", ""},        // SVG
	{"/t/50", "resources", "use@href", ""},          // SVG, fragment dropped
	{"/t/51", "resources", "header:Link", ""},       // rel=preload
	{"/t/52", "resources", "meta@content", ""},      // og:image
	{"/t/53", "resources", "style css:url", ""},     // image-set()
	{"/t/54", "resources", "comment link@href", ""}, // conditional comment
	{"/base/t/56", "resources", "iframe@srcdoc img@src", ""},
	{"/t/57", "resources", "script@href", ""}, // SVG
	{"/t/67", "resources", "css:url", ""},     // style.css
	{"/t/68", "resources", "css:@import", ""}, // style.css
	// navigation inside srcdoc
	{"/t/55", "navigation", "iframe@srcdoc a@href", ""},
	// forms
	{"/t/58?q=x", "forms", "form@action", ""},
	{"/dir/page.html?page=59", "forms", "form@action", ""}, // no action: the page URL
	{"/t/60", "forms", "form@action", "POST"},
	{"/t/70?v=1&b=go", "forms", "button@formaction", ""}, // formmethod=get in a POST form
	{"/t/71", "forms", "input@formaction", "POST"},
	{"/t/72", "forms", "form@action", "POST"},
	// scripts: guesses
	{"/t/61", "scripts", "script js:string", ""},
	{"/t/62", "scripts", "a@onclick js:string", ""},
	{"/t/63", "scripts", "a@href js:string", ""}, // javascript: link
	{"/t/64", "scripts", "div@data-url", ""},
	{"/t/65", "scripts", "div@data-config json:string", ""},
	{"/t/66", "scripts", "script json:string", ""}, // application/ld+json
}

var bedHeaders = map[string]string{
	"Content-Type":     "text/html; charset=utf-8",
	"Link":             `</t/18>; rel="next", </t/51>; rel=preload; as=image`,
	"Refresh":          "60; url=/t/19",
	"Content-Location": "/t/20",
}

// linkBedInput is the test bed as cfetch's response records.
func linkBedInput(t *testing.T) []byte {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "linkbed", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var in bytes.Buffer
	for _, r := range []struct {
		url, file string
		headers   map[string]string
	}{
		{"https://bed.test/dir/page.html", "page.html", bedHeaders},
		{"https://bed.test/dir/frames.html", "frames.html", map[string]string{"Content-Type": "text/html"}},
		{"https://bed.test/dir/style.css", "style.css", map[string]string{"Content-Type": "text/css"}},
	} {
		in.WriteString(response(t, r.url, read(r.file), map[string]any{"url": r.url}, map[string]any{"headers": r.headers}) + "\n")
	}
	return in.Bytes()
}

// bedRun runs cextract with args over the test bed and returns the
// follow-ups: method and URL (path and query) -> link_kind and source.
func bedRun(t *testing.T, args ...string) map[string][2]string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := execute(context.Background(), append([]string{"-q"}, args...), bytes.NewReader(linkBedInput(t)), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := map[string][2]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct{ URL, Method, LinkKind, Source string }
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal(raw["url"], &r.URL)
		_ = json.Unmarshal(raw["method"], &r.Method)
		_ = json.Unmarshal(raw["link_kind"], &r.LinkKind)
		_ = json.Unmarshal(raw["source"], &r.Source)
		key := strings.TrimPrefix(r.URL, "https://bed.test")
		if r.Method != "" {
			key = r.Method + " " + key
		}
		if _, dup := got[key]; dup {
			t.Errorf("%s written twice", key)
		}
		got[key] = [2]string{r.LinkKind, r.Source}
	}
	return got
}

// TestLinkBedKindsAll: --links --kinds all --post-forms finds every case of
// the test bed, with its kind and source, and nothing else.
func TestLinkBedKindsAll(t *testing.T) {
	got := bedRun(t, "--links", "--kinds", "all", "--post-forms")
	want := map[string]bool{}
	for _, c := range linkBed {
		key := c.url
		if c.method != "" {
			key = c.method + " " + key
		}
		want[key] = true
		g, ok := got[key]
		switch {
		case !ok:
			t.Errorf("%s (%s %s): not found", key, c.kind, c.source)
		case g != [2]string{c.kind, c.source}:
			t.Errorf("%s: got %s %q, want %s %q", key, g[0], g[1], c.kind, c.source)
		}
	}
	for key, g := range got {
		if !want[key] {
			t.Errorf("%s (%s %q): found, not in the test bed", key, g[0], g[1])
		}
	}
	if len(linkBed) < 63 {
		t.Errorf("the test bed has %d cases, want at least the issue's 63", len(linkBed))
	}
}

// TestLinkBedEachKind: each kind alone finds exactly its cases.
func TestLinkBedEachKind(t *testing.T) {
	for _, kind := range []string{"navigation", "resources", "forms", "scripts"} {
		got := bedRun(t, "--links", "--kinds", kind)
		var want []string
		for _, c := range linkBed {
			if c.kind == kind && c.method == "" {
				want = append(want, c.url)
			}
		}
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		slices.Sort(want)
		slices.Sort(keys)
		if !slices.Equal(keys, want) {
			t.Errorf("--kinds %s:\n got %q\nwant %q", kind, keys, want)
		}
	}
}

// TestLinkBedDefault: --links without kinds finds every navigation case
// (DefaultKinds), and writes no link_kind or source.
func TestLinkBedDefault(t *testing.T) {
	got := bedRun(t, "--links")
	want := map[string]bool{}
	for _, c := range linkBed {
		if c.kind == "navigation" {
			want[c.url] = true
		}
	}
	for k, g := range got {
		if !want[k] {
			t.Errorf("%s: found, not a navigation case", k)
		}
		if g != [2]string{} {
			t.Errorf("%s: got %q, want no kind or source", k, g)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("%s: navigation case not found", k)
		}
	}
}

// BenchmarkExtractKindsAll is BenchmarkExtract's page with --kinds all:
// the cost of finding every kind of link.
func BenchmarkExtractKindsAll(b *testing.B) {
	benchmarkLinks(b, []string{"all"})
}

// BenchmarkExtractLinksDefault is the same page with --links alone.
func BenchmarkExtractLinksDefault(b *testing.B) {
	benchmarkLinks(b, nil)
}

func benchmarkLinks(b *testing.B, kinds []string) {
	body := productPage()
	line := []byte(response(b, "https://books.example/catalogue/a/index.html", body, map[string]any{"url": "https://books.example/catalogue/a/index.html"}, nil) + "\n")
	args := []string{"-q", "--links"}
	if kinds != nil {
		args = append(args, "--kinds", strings.Join(kinds, ","))
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if code := execute(context.Background(), args, bytes.NewReader(line), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// FuzzLinksAllKinds: with every kind, any page gives links that are
// absolute http(s) URLs without a fragment that the frontier takes, each
// with its kind and source, and never a panic.
func FuzzLinksAllKinds(f *testing.F) {
	for _, s := range []string{
		`<a href="/a" ping="/p b"><img src=i srcset="j 1x, k 2x"></a><form><input name=q value="a b"></form>`,
		`<base href="https://other.example/x/"><iframe srcdoc="<a href=y>y</a>"></iframe>`,
		`<!--[if IE]><link rel=stylesheet href="ie.css"><![endif]--><div style="background:url('b.png')" data-x='{"u":"/j"}' onclick="go('/c')">`,
		`<script>location='/s?x=' + 1 / 2</script><style>@import "s.css"; a{b:url(\68 ttp://x.test/)}</style>`,
		`<meta http-equiv=refresh content="0;url=http://[::1]:99999/"><form method=post action="http://a:b@c/"><select name=s multiple></select></form>`,
		`<form method=post action=/f><button name=b value=v formaction="/g?x#y" formmethod=get></button><input type=submit formaction=" http://[::1/"></form>`,
	} {
		f.Add(s)
	}
	ex := LinkExtractor{Kinds: linkfind.All, PostForms: true}
	f.Fuzz(func(t *testing.T, body string) {
		d := selector.ParseDoc(body, "https://example.com/dir/page.html?q=1")
		_, err := ex.each(d, nil, nil, func(s string, u *url.URL, l *linkfind.Link) {
			if l == nil || l.Kind == 0 || l.Source == "" {
				t.Fatalf("%q: link %+v", s, l)
			}
			if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || strings.Contains(s, "#") {
				t.Fatalf("%q is not an absolute http(s) URL without fragment", s)
			}
			if c, err := fingerprint.ScrapyCanonical(s); err != nil || fingerprint.Host(c) == "" {
				t.Fatalf("%q: frontier refuses it: canonical %q, %v", s, c, err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
