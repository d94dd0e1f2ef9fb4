package cextract

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// linkBedInput is the link test bed of the demo site (demosite.LinkBed,
// one page per case) as cfetch's response records, served on
// https://bed.test.
func linkBedInput(t *testing.T) []byte {
	t.Helper()
	site := demosite.New(demosite.Options{Products: 20})
	var in bytes.Buffer
	for _, p := range demosite.LinkBedPages()[1:] { // not the index: it links the pages
		rec := httptest.NewRecorder()
		site.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://bed.test"+p, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", p, rec.Code)
		}
		headers := map[string]string{}
		for k, v := range rec.Header() {
			headers[k] = v[0]
		}
		u := "https://bed.test" + p
		in.WriteString(response(t, u, rec.Body.String(), map[string]any{"url": u}, map[string]any{"headers": headers}) + "\n")
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
// the demo site's link test bed, with its kind and source, and nothing else.
func TestLinkBedKindsAll(t *testing.T) {
	got := bedRun(t, "--links", "--kinds", "all", "--post-forms")
	want := map[string]bool{}
	bed := demosite.LinkBed()
	for _, c := range bed {
		key := c.Target
		if c.Method != "" {
			key = c.Method + " " + key
		}
		want[key] = true
		g, ok := got[key]
		switch {
		case !ok:
			t.Errorf("case %s %s (%s %s): not found", c.Case, key, c.Kind, c.Source)
		case g != [2]string{c.Kind, c.Source}:
			t.Errorf("case %s %s: got %s %q, want %s %q", c.Case, key, g[0], g[1], c.Kind, c.Source)
		}
	}
	for key, g := range got {
		if !want[key] {
			t.Errorf("%s (%s %q): found, not in the test bed", key, g[0], g[1])
		}
	}
	if len(bed) < 63 {
		t.Errorf("the test bed has %d cases, want at least the issue's 63", len(bed))
	}
}

// TestLinkBedEachKind: each kind alone finds exactly its cases.
func TestLinkBedEachKind(t *testing.T) {
	for _, kind := range []string{"navigation", "resources", "forms", "scripts"} {
		got := bedRun(t, "--links", "--kinds", kind)
		var want []string
		for _, c := range demosite.LinkBed() {
			if c.Kind == kind && c.Method == "" {
				want = append(want, c.Target)
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
// (DefaultKinds), each with the kind and source it has with --kinds all.
func TestLinkBedDefault(t *testing.T) {
	got := bedRun(t, "--links")
	want := map[string][2]string{}
	for _, c := range demosite.LinkBed() {
		if c.Kind == "navigation" {
			want[c.Target] = [2]string{c.Kind, c.Source}
		}
	}
	for k, g := range got {
		w, ok := want[k]
		if !ok {
			t.Errorf("%s: found, not a navigation case", k)
		}
		if g != w {
			t.Errorf("%s: got %q, want %q", k, g, w)
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
