package cfetch

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// handbackServer: /a → 301 /b → 302 /c (200); /post → 301 /c; /loop → /loop2
// → /loop; /refresh is a meta refresh to /c; /away → 301 to another host.
func handbackServer(t *testing.T, other string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			http.Redirect(w, r, "/b", http.StatusMovedPermanently)
		case "/b":
			http.Redirect(w, r, "/c#frag", http.StatusFound)
		case "/post":
			http.Redirect(w, r, "/c", http.StatusMovedPermanently)
		case "/loop":
			http.Redirect(w, r, "/loop2", http.StatusMovedPermanently)
		case "/loop2":
			http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
		case "/away":
			http.Redirect(w, r, other+"/c", http.StatusMovedPermanently)
		case "/refresh":
			fmt.Fprint(w, `<html><head><meta http-equiv="refresh" content="0; url=/c"></head><body>moved</body></html>`)
		default:
			fmt.Fprintf(w, "<html><body>%s %s</body></html>", r.Method, r.Header.Get("Authorization"))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// next decodes a response's redirect_request.
func next(t *testing.T, r record.Response) record.Request {
	t.Helper()
	var req record.Request
	if len(r.RedirectRequest) == 0 {
		t.Fatalf("no redirect_request in %+v", r)
	}
	if err := record.Decode(r.RedirectRequest, &req); err != nil {
		t.Fatalf("redirect_request %s: %v", r.RedirectRequest, err)
	}
	return req
}

// TestHandBackChain: a request with a lease gets each hop of a chain back
// as the response's redirect_request; fetching the hops one by one ends on
// the page with the whole chain in redirects, as cfetch alone gives it.
func TestHandBackChain(t *testing.T) {
	t.Parallel()
	s := handbackServer(t, "")
	in := fmt.Sprintf(`{"kind":"request","url":"%s/a","lease":"L1","priority":3,"depth":2,"crawlid":"c","headers":{"X-Trace":"1"},"attrs":{"k":1}}`, s.URL)
	r1 := runCfetch(t, in+"\n").one(t)
	if r1.Status != 301 || r1.URL != s.URL+"/a" || r1.Error != "" || len(r1.Redirects) != 0 || r1.Body != "" {
		t.Fatalf("first hop: %+v", r1)
	}
	n1 := next(t, r1)
	if n1.URL != s.URL+"/b" || n1.Lease != "" || n1.Priority != 5 || n1.Depth != 2 || n1.CrawlID != "c" ||
		n1.Headers["X-Trace"] != "1" || string(n1.Attrs) != `{"k":1}` ||
		len(n1.Redirects) != 1 || n1.Redirects[0] != (record.Redirect{URL: s.URL + "/a", Status: 301}) {
		t.Fatalf("next request: %s", r1.RedirectRequest)
	}
	// The hop comes back through the frontier with a lease of its own.
	n1.Lease = "L2"
	line, _ := record.Encode(&n1)
	r2 := runCfetch(t, string(line)).one(t)
	n2 := next(t, r2)
	if r2.Status != 302 || len(r2.Redirects) != 1 || n2.URL != s.URL+"/c#frag" || n2.Priority != 7 || len(n2.Redirects) != 2 {
		t.Fatalf("second hop: %+v\nnext: %s", r2, r2.RedirectRequest)
	}
	n2.Lease = "L3"
	line, _ = record.Encode(&n2)
	r3 := runCfetch(t, string(line)).one(t)
	if r3.Status != 200 || r3.URL != s.URL+"/c#frag" || len(r3.RedirectRequest) != 0 ||
		len(r3.Redirects) != 2 || r3.Redirects[1] != (record.Redirect{URL: s.URL + "/b", Status: 302}) {
		t.Fatalf("page: %+v", r3)
	}

	// Without a lease cfetch follows the chain itself, as before.
	r := runCfetch(t, s.URL+"/a\n").one(t)
	if r.Status != 200 || len(r.Redirects) != 2 || len(r.RedirectRequest) != 0 {
		t.Fatalf("without a lease: %+v", r)
	}
	// --redirect-mode follow: also with one.
	r = runCfetch(t, in+"\n", "--redirect-mode", "follow").one(t)
	if r.Status != 200 || len(r.Redirects) != 2 || len(r.RedirectRequest) != 0 {
		t.Fatalf("--redirect-mode follow: %+v", r)
	}
	// --redirect-mode handback: also without one.
	if r = runCfetch(t, s.URL+"/a\n", "--redirect-mode", "handback").one(t); r.Status != 301 || next(t, r).URL != s.URL+"/b" {
		t.Fatalf("--redirect-mode handback: %+v", r)
	}
}

// TestHandBackRequestRewrite: the next hop is the request a browser would
// send: a 301 turns POST into a body-less GET, and credentials stay on
// their host.
func TestHandBackRequestRewrite(t *testing.T) {
	t.Parallel()
	other := handbackServer(t, "")
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) // another host name
	s := handbackServer(t, otherURL)
	in := fmt.Sprintf(`{"kind":"request","url":"%s/post","method":"POST","body":"a=1","headers":{"Content-Type":"application/x-www-form-urlencoded","Authorization":"Basic eDp5","X-Keep":"k"},"lease":"L"}`, s.URL)
	n := next(t, runCfetch(t, in+"\n").one(t))
	if n.Method != "" || n.Body != "" || n.Headers["Content-Type"] != "" || n.Headers["Authorization"] == "" || n.Headers["X-Keep"] != "k" {
		t.Errorf("POST after 301: %+v", n)
	}
	in = fmt.Sprintf(`{"kind":"request","url":"%s/away","headers":{"Authorization":"Basic eDp5","X-Keep":"k"},"lease":"L"}`, s.URL)
	n = next(t, runCfetch(t, in+"\n").one(t))
	if n.URL != otherURL+"/c" || n.Headers["Authorization"] != "" || n.Headers["X-Keep"] != "k" {
		t.Errorf("redirect to another host: %+v", n)
	}
}

// TestHandBackLimits: the chain's limits count the hops that came before
// (a loop across hand-backs, --max-redirects), and the offsite rule
// applies to each hop.
func TestHandBackLimits(t *testing.T) {
	t.Parallel()
	other := handbackServer(t, "")
	s := handbackServer(t, other.URL)
	in := fmt.Sprintf(`{"kind":"request","url":"%s/loop","lease":"L"}`, s.URL)
	r := runCfetch(t, in+"\n").one(t)
	n := next(t, r)
	n.Lease = "L2"
	line, _ := record.Encode(&n)
	if r = runCfetch(t, string(line)).one(t); r.Error != ErrRedirectLoop || len(r.RedirectRequest) != 0 {
		t.Errorf("loop across hand-backs: %+v", r)
	}

	in = fmt.Sprintf(`{"kind":"request","url":"%s/b","lease":"L","redirects":[{"url":"%s/x","status":301},{"url":"%s/y","status":301}]}`, s.URL, s.URL, s.URL)
	if r = runCfetch(t, in+"\n", "--max-redirects", "2").one(t); r.Error != ErrTooManyRedirects {
		t.Errorf("--max-redirects 2 after two carried hops: %+v", r)
	}
	if r = runCfetch(t, in+"\n", "--max-redirects", "3").one(t); r.Error != "" || len(next(t, r).Redirects) != 3 {
		t.Errorf("--max-redirects 3 after two carried hops: %+v", r)
	}

	in = fmt.Sprintf(`{"kind":"request","url":"%s/away","lease":"L","allowed_domains":["example.com"]}`, s.URL)
	if r = runCfetch(t, in+"\n").one(t); r.Error != ErrOffsiteRedirect {
		t.Errorf("offsite hop: %+v", r)
	}
}

// TestHandBackMetaRefresh: a meta refresh is a hop like a 3xx; the page
// that carries it is not returned as content.
func TestHandBackMetaRefresh(t *testing.T) {
	t.Parallel()
	s := handbackServer(t, "")
	in := fmt.Sprintf(`{"kind":"request","url":"%s/refresh","lease":"L"}`, s.URL)
	r := runCfetch(t, in+"\n").one(t)
	n := next(t, r)
	if r.Status != 200 || r.Body != "" || n.URL != s.URL+"/c" || n.Redirects[0] != (record.Redirect{URL: s.URL + "/refresh", Status: 200}) {
		t.Errorf("meta refresh: %+v\nnext %s", r, r.RedirectRequest)
	}
	if r = runCfetch(t, in+"\n", "--no-meta-refresh").one(t); r.Status != 200 || len(r.RedirectRequest) != 0 || !strings.Contains(r.Body, "moved") {
		t.Errorf("--no-meta-refresh: %+v", r)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(runCfetch(t, in+"\n").lines[0]), &raw); err != nil || raw["redirect_request"] == nil {
		t.Errorf("the record has no redirect_request field: %v", err)
	}
}
