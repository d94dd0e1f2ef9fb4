package cfetch

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/encoding/japanese"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/record"
)

// What cfetch does for a request beyond politeness, against local servers:
// cookies per crawl, basic auth, proxies, HTTP/2, --resolve, --save-dir,
// meta refresh and the HTTP cache.

// TestCookiesPerCrawl: a cookie set in one crawl is sent back in that
// crawl only; --no-cookies keeps none.
func TestCookiesPerCrawl(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	in := fmt.Sprintf(`{"url":"%[1]s/setcookie/abc","crawlid":"c1"}
{"url":"%[1]s/echo","crawlid":"c1"}
{"url":"%[1]s/echo","crawlid":"c2"}
{"url":"%[1]s/echo","crawlid":"c1","headers":{"Cookie":"mine=1"}}
`, s.URL)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"session=abc", "", "mine=1; session=abc"}},
		{[]string{"--no-cookies"}, []string{"", "", "mine=1"}},
	} {
		res := runCfetch(t, in, append([]string{"--concurrency", "1"}, tt.args...)...)
		var got []string
		for _, r := range res.resps {
			if strings.HasSuffix(r.URL, "/echo") {
				var e struct{ Headers map[string]string }
				json.Unmarshal([]byte(r.Body), &e)
				got = append(got, e.Headers["cookie"])
			}
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%v: cookies sent %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestBasicAuth: --user goes to the first request's host (and its
// subdomains) only, as Scrapy's http_auth_domain does; credentials in the
// URL work too.
func TestBasicAuth(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	port, resolve := vhost(t, s.Server)
	in := fmt.Sprintf("http://shop.test:%[1]s/auth\nhttp://www.shop.test:%[1]s/auth\nhttp://other.test:%[1]s/auth\nhttp://user:secret@other.test:%[1]s/auth\n", port)
	res := runCfetch(t, in, append([]string{"--user", "user:secret", "--concurrency", "1"}, resolve...)...)
	got := map[string]int{}
	for _, r := range res.resps {
		got[r.URL] = r.Status
	}
	want := map[string]int{
		"http://shop.test:" + port + "/auth":              200,
		"http://www.shop.test:" + port + "/auth":          200,
		"http://other.test:" + port + "/auth":             401,
		"http://user:secret@other.test:" + port + "/auth": 200,
	}
	for u, st := range want {
		if got[u] != st {
			t.Errorf("%s: status %d, want %d", u, got[u], st)
		}
	}
	res = runCfetch(t, in, append([]string{"--user", "user:secret", "--auth-domain", "other.test"}, resolve...)...)
	for _, r := range res.resps {
		if strings.Contains(r.URL, "shop.test") && r.Status != 401 {
			t.Errorf("--auth-domain other.test: %s got %d", r.URL, r.Status)
		}
	}
}

// proxyServer is a forward proxy that answers every request itself and
// records the URLs asked for.
func proxyServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.String())
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "via proxy "+r.Header.Get("Proxy-Authorization"))
	}))
	t.Cleanup(p.Close)
	return p, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// TestProxies: a request's own "proxy", --proxy, and HTTP_PROXY.
func TestProxies(t *testing.T) {
	t.Parallel()
	p, seen := proxyServer(t)
	withAuth := strings.Replace(p.URL, "http://", "http://u:pw@", 1)
	r := runCfetch(t, `{"url":"http://far.test/a","proxy":"`+withAuth+`"}`+"\n").one(t)
	if r.Body != "via proxy Basic dTpwdw==" {
		t.Errorf("request proxy: %+v", r)
	}
	r = runCfetch(t, "http://far.test/b\n", "--proxy", p.URL).one(t)
	if r.Body != "via proxy " {
		t.Errorf("--proxy: %+v", r)
	}
	r = runCfetchEnv(t, context.Background(), map[string]string{"HTTP_PROXY": p.URL}, strings.NewReader("http://far.test/c\n")).one(t)
	if r.Body != "via proxy " {
		t.Errorf("HTTP_PROXY: %+v", r)
	}
	if got := strings.Join(seen(), " "); got != "http://far.test/robots.txt http://far.test/a http://far.test/robots.txt http://far.test/b http://far.test/robots.txt http://far.test/c" {
		t.Errorf("the proxy saw %s", got)
	}
	r = runCfetch(t, `{"url":"http://far.test/a","proxy":"ftp://x"}`+"\n").one(t)
	if r.Error != ErrInvalidURL || !strings.Contains(r.ErrorDetail, `field "proxy"`) {
		t.Errorf("bad proxy: %+v", r)
	}
}

// TestHTTP2: HTTP/2 with a TLS server that offers it; --no-http2 keeps to
// HTTP/1.1.
func TestHTTP2(t *testing.T) {
	t.Parallel()
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.Proto)
	}))
	s.EnableHTTP2 = true
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-certificate case
	s.StartTLS()
	defer s.Close()
	if r := runCfetch(t, s.URL+"/\n", "-k").one(t); r.Body != "HTTP/2.0" {
		t.Errorf("got %q (%s)", r.Body, r.ErrorDetail)
	}
	if r := runCfetch(t, s.URL+"/\n", "-k", "--no-http2").one(t); r.Body != "HTTP/1.1" {
		t.Errorf("--no-http2: got %q (%s)", r.Body, r.ErrorDetail)
	}
	if r := runCfetch(t, s.URL+"/\n", fast...).one(t); r.Error != ErrTLS {
		t.Errorf("untrusted certificate: %+v", r)
	}
}

// TestResolveSendsTheHostName: --resolve connects to the address given and
// keeps the URL's host name in the request.
func TestResolveSendsTheHostName(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	port, resolve := vhost(t, s.Server)
	r := runCfetch(t, "http://www.shop.test:"+port+"/echo\n", resolve...).one(t)
	if !strings.Contains(r.Body, `"host":"www.shop.test:`+port+`"`) {
		t.Errorf("%+v", r)
	}
	r = runCfetch(t, "http://unknown.invalid:"+port+"/echo\n", "--resolve", "www.shop.test:"+port+":127.0.0.1", "--retries", "0").one(t)
	if r.Error != ErrDNS {
		t.Errorf("a host --resolve does not name: %+v", r)
	}
}

// TestHTTPCacheRevalidates: with rfc9111 every cached page is asked
// again, however old its Last-Modified (no heuristic freshness) or long
// its max-age; only a 304 is "unchanged". --cache-fresh lets the server's
// max-age answer without asking, marked "cached", never a Last-Modified.
func TestHTTPCacheRevalidates(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	dir := t.TempDir()
	stats := filepath.Join(dir, "stats.json")
	args := []string{"--cache-dir", dir, "--cache-policy", "rfc9111", "--stats", stats}
	in := s.URL + "/static\n" + s.URL + "/maxage\n"
	runCfetch(t, in, args...)
	res := runCfetch(t, in, args...)
	for _, r := range res.resps {
		if r.Status != 200 || !r.Unchanged || r.Cached {
			t.Errorf("second run: %s: status %d, unchanged %v, cached %v", r.URL, r.Status, r.Unchanged, r.Cached)
		}
	}
	if s.hits("static conditional") != 1 || s.hits("maxage") != 2 {
		t.Errorf("the server was asked %d times conditionally for /static, %d times for /maxage", s.hits("static conditional"), s.hits("maxage"))
	}
	st := readStats(t, stats)
	if st.Counts["unchanged"]["responses"] != 2 || st.Counts["from_cache"]["responses"] != 0 {
		t.Errorf("stats: unchanged %v, from_cache %v", st.Counts["unchanged"], st.Counts["from_cache"])
	}

	res = runCfetch(t, in, append(args, "--cache-fresh")...)
	for _, r := range res.resps {
		fromCache := strings.HasSuffix(r.URL, "/maxage")
		if r.Status != 200 || r.Unchanged == fromCache || r.Cached != fromCache {
			t.Errorf("--cache-fresh: %s: status %d, unchanged %v, cached %v", r.URL, r.Status, r.Unchanged, r.Cached)
		}
	}
	if s.hits("static conditional") != 2 || s.hits("maxage") != 2 {
		t.Errorf("--cache-fresh: the server was asked %d times conditionally for /static, %d times for /maxage", s.hits("static conditional"), s.hits("maxage"))
	}
	st = readStats(t, stats)
	if st.Counts["unchanged"]["responses"] != 1 || st.Counts["from_cache"]["responses"] != 1 {
		t.Errorf("--cache-fresh stats: unchanged %v, from_cache %v", st.Counts["unchanged"], st.Counts["from_cache"])
	}
}

func readStats(t *testing.T, path string) cli.StatsJSON {
	t.Helper()
	var st cli.StatsJSON
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSaveDir: binary bodies go to files named by their SHA-1.
func TestSaveDir(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	dir := t.TempDir()
	res := runCfetch(t, s.URL+"/binary\n"+s.URL+"/ok\n", "--save-dir", dir)
	for _, r := range res.resps {
		if strings.HasSuffix(r.URL, "/ok") {
			if r.BodyPath != "" || r.Body == "" {
				t.Errorf("text body: %+v", r)
			}
			continue
		}
		sum := sha1.Sum(binaryBody())
		want := filepath.Join(dir, "full", hex.EncodeToString(sum[:])+".png")
		b, err := os.ReadFile(r.BodyPath)
		if r.BodyPath != want || err != nil || string(b) != string(binaryBody()) || r.BodyBase64 != "" || r.Size != int64(len(b)) {
			t.Fatalf("body_path %q (%v), want %q; base64 %q", r.BodyPath, err, want, r.BodyBase64)
		}
	}
}

// TestMetaRefresh: followed by default, like a redirect, as Scrapy does;
// not with --no-meta-refresh.
func TestMetaRefresh(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	r := runCfetch(t, s.URL+"/refresh\n").one(t)
	if r.URL != s.URL+"/ok" || len(r.Redirects) != 1 || r.Redirects[0] != (record.Redirect{URL: s.URL + "/refresh", Status: 200}) {
		t.Errorf("url %s redirects %v", r.URL, r.Redirects)
	}
	if r := runCfetch(t, s.URL+"/refresh\n", "--no-meta-refresh").one(t); r.URL != s.URL+"/refresh" || !strings.Contains(r.Body, "moved") {
		t.Errorf("with --no-meta-refresh: %+v", r)
	}
}

// TestMetaRefreshLegacyCharset: a refresh to a URL with non-ASCII letters
// on a Shift_JIS page goes where a browser (and Scrapy) goes: its path is
// read in the page's charset and sent as UTF-8, its query is sent in the
// page's charset.
func TestMetaRefreshLegacyCharset(t *testing.T) {
	t.Parallel()
	page := encode(japanese.ShiftJIS, `<html><head><meta charset="shift_jis"><meta http-equiv="refresh" content="0; url=/東京/?q=大阪"></head><body>移動</body></html>`)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/start" {
			w.Header().Set("Content-Type", "text/html")
			w.Write(page)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, r.RequestURI)
	}))
	defer s.Close()
	r := runCfetch(t, s.URL+"/start\n").one(t)
	const want = "/%E6%9D%B1%E4%BA%AC/?q=%91%E5%8D%E3"
	if r.URL != s.URL+want || r.Body != want {
		t.Errorf("refresh went to %s (the server saw %q), want %s", r.URL, r.Body, s.URL+want)
	}
}

// TestHTTPCacheDummy: a second run is answered from the cache without a
// request; --cache-only answers a miss with an error, without a request.
func TestHTTPCacheDummy(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	dir := t.TempDir()
	first := runCfetch(t, s.URL+"/counter\n", "--cache-dir", dir).one(t)
	second := runCfetch(t, s.URL+"/counter\n", "--cache-dir", dir).one(t)
	if first.Body != "call 1" || second.Body != "call 1" || s.hits("/counter") != 1 {
		t.Errorf("first %q, second %q, %d requests", first.Body, second.Body, s.hits("/counter"))
	}
	if s.hits("127.0.0.1 /robots.txt") != 1 {
		t.Errorf("robots.txt fetched %d times: it is cached too", s.hits("127.0.0.1 /robots.txt"))
	}
	miss := runCfetch(t, s.URL+"/ok\n", "--cache-dir", dir, "--cache-only").one(t)
	if miss.Error != ErrCacheMiss || s.hits("/ok") != 0 {
		t.Errorf("--cache-only miss: %+v, %d requests", miss, s.hits("/ok"))
	}
	expired := runCfetch(t, s.URL+"/counter\n", "--cache-dir", dir, "--cache-expire", "1ns").one(t)
	if expired.Body != "call 2" {
		t.Errorf("expired entry used: %q", expired.Body)
	}
}

// TestHTTPCacheRFC9111: a stale entry with an ETag is revalidated with
// If-None-Match, and the 304 answered from the cache, marked unchanged,
// its body counted as bytes saved.
func TestHTTPCacheRFC9111(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	dir := t.TempDir()
	stats := filepath.Join(dir, "stats.json")
	args := []string{"--cache-dir", dir, "--cache-policy", "rfc9111", "--stats", stats}
	if first := runCfetch(t, s.URL+"/etag\n", args...).one(t); first.Unchanged {
		t.Errorf("the first fetch is marked unchanged")
	}
	r := runCfetch(t, s.URL+"/etag\n", args...).one(t)
	if r.Status != 200 || r.Body != "tagged body" || !r.Unchanged || s.hits("etag 200") != 1 || s.hits("etag 304") != 1 {
		t.Errorf("%+v; server sent %d 200s and %d 304s", r, s.hits("etag 200"), s.hits("etag 304"))
	}
	b, _ := os.ReadFile(stats)
	var st cli.StatsJSON
	json.Unmarshal(b, &st)
	if st.Counts["cache"]["revalidated"] != 1 || st.Counts["unchanged"]["responses"] != 1 || st.Counts["unchanged"]["bytes_saved"] != int64(len("tagged body")) {
		t.Errorf("stats %s", b)
	}
}
