package monitor

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

const token = "s3cret-token-for-tests"

// TestActionsNeedControlAndToken: an action answers 403 when control is
// not allowed, 401 without the token or with a wrong one, and does what
// cqueue stop does with it; the guards against cross-site posts hold.
func TestActionsNeedControlAndToken(t *testing.T) {
	k := newKnown(t)
	now := t0
	readOnly := newServer(t, k, Options{Token: token}, &now)
	control := newServer(t, k, Options{Token: token, AllowControl: true}, &now)
	stop := `{"crawlid":"other"}`
	json := "application/json"
	bearer := "Bearer " + token
	cases := []struct {
		name    string
		s       *Server
		method  string
		path    string
		body    string
		headers []string
		status  int
		code    string
	}{
		{"control not allowed", readOnly, "POST", "/api/v1/stop", stop, []string{"Content-Type", json, "Authorization", bearer}, 403, "control_disabled"},
		{"no token", control, "POST", "/api/v1/stop", stop, []string{"Content-Type", json}, 401, "unauthorized"},
		{"wrong token", control, "POST", "/api/v1/stop", stop, []string{"Content-Type", json, "Authorization", "Bearer s3cret-token-for-test"}, 401, "unauthorized"},
		{"token not bearer", control, "POST", "/api/v1/stop", stop, []string{"Content-Type", json, "Authorization", token}, 401, "unauthorized"},
		{"a form's content type", control, "POST", "/api/v1/stop", "crawlid=other", []string{"Content-Type", "application/x-www-form-urlencoded", "Authorization", bearer}, 415, "bad_content_type"},
		{"text/plain", control, "POST", "/api/v1/stop", stop, []string{"Content-Type", "text/plain", "Authorization", bearer}, 415, "bad_content_type"},
		{"cross-site fetch", control, "POST", "/api/v1/stop", stop, []string{"Content-Type", json, "Authorization", bearer, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}, 403, "cross_origin"},
		{"other origin", control, "POST", "/api/v1/stop", stop, []string{"Content-Type", json, "Authorization", bearer, "Origin", "https://evil.example"}, 403, "cross_origin"},
		{"body too large", control, "POST", "/api/v1/stop", `{"crawlid":"` + strings.Repeat("x", 5000) + `"}`, []string{"Content-Type", json, "Authorization", bearer}, 413, "too_large"},
		{"unknown field", control, "POST", "/api/v1/stop", `{"crawl":"other"}`, []string{"Content-Type", json, "Authorization", bearer}, 400, "bad_request"},
		{"no crawlid", control, "POST", "/api/v1/stop", `{}`, []string{"Content-Type", json, "Authorization", bearer}, 400, "bad_request"},
		{"another host name (DNS rebinding)", control, "GET", "/api/v1/crawls", "", []string{"Host", "evil.example:8077"}, 421, "bad_host"},
	}
	for _, c := range cases {
		resp := do(t, c.s, c.method, c.path, c.body, c.headers...)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != c.status || !strings.Contains(string(body), `"code":"`+c.code+`"`) {
			t.Errorf("%s: %d %s, want %d %s", c.name, resp.StatusCode, body, c.status, c.code)
		}
		if c.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", c.name)
		}
	}
	if q, _ := k.fr.Counts(context.Background()); q.Queued != 6 {
		t.Fatalf("a refused action changed the frontier: %+v", q)
	}
	if resp := do(t, control, "GET", "/api/v1/stop", ""); resp.StatusCode != 405 {
		t.Errorf("GET of an action: %d, want 405", resp.StatusCode)
	}

	// With everything right (a same-origin page: Origin and Sec-Fetch-Site
	// say so), the crawl is stopped as cqueue stop does.
	resp := do(t, control, "POST", "/api/v1/stop", stop, "Content-Type", "application/json; charset=utf-8", "Authorization", bearer,
		"Origin", "http://127.0.0.1:8077", "Sec-Fetch-Site", "same-origin")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != `{"crawlid":"other","kind":"stop","purged":1}`+"\n" {
		t.Fatalf("stop: %d %s", resp.StatusCode, body)
	}
	info, _ := k.fr.Info(context.Background(), frontier.InfoFilter{CrawlID: "other"})
	if len(info.Crawls) != 1 || info.Crawls[0].State != frontier.StateStopped {
		t.Errorf("after stop: %+v", info)
	}

	// Pause and resume set the crawl's flag.
	for _, a := range []struct{ path, want string }{{"/api/v1/pause", "1"}, {"/api/v1/resume", "0"}} {
		resp := do(t, control, "POST", a.path, `{"crawlid":"shop"}`, "Content-Type", json, "Authorization", bearer)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", a.path, resp.StatusCode)
		}
		m, _ := k.fr.CrawlMeta(context.Background(), "shop")
		if m[frontier.MetaPaused] != a.want {
			t.Errorf("after %s: meta %v", a.path, m)
		}
	}
	// Expire, with an empty body, reports what expired: nothing here.
	resp = do(t, control, "POST", "/api/v1/expire", "", "Content-Type", json, "Authorization", bearer)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != `{"expired":[]}`+"\n" {
		t.Errorf("expire: %d %s", resp.StatusCode, body)
	}
}

// TestOffLoopbackEveryReadNeedsTheToken: listening beyond loopback, the
// API answers only with the token; the page itself (no data) is served.
func TestOffLoopbackEveryReadNeedsTheToken(t *testing.T) {
	k := newKnown(t)
	now := t0
	s := newServer(t, k, Options{Listen: "0.0.0.0:8077", Token: token}, &now)
	if err := s.Sample(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	if resp := do(t, s, "GET", "/api/v1/crawls", "", "Host", "crawler.example:8077"); resp.StatusCode != 401 {
		t.Errorf("no token: %d, want 401", resp.StatusCode)
	}
	if resp := do(t, s, "GET", "/api/v1/crawls", "", "Host", "crawler.example:8077", "Authorization", "Bearer nope"); resp.StatusCode != 401 {
		t.Errorf("wrong token: %d, want 401", resp.StatusCode)
	}
	var v map[string]any
	getJSON(t, s, "/api/v1/crawls", &v, "Host", "crawler.example:8077", "Authorization", "Bearer "+token)
	if resp := do(t, s, "GET", "/", "", "Host", "crawler.example:8077"); resp.StatusCode != 200 {
		t.Errorf("the page: %d", resp.StatusCode)
	}
}

// TestCheckOptions: the settings cqueue serve refuses to start with.
func TestCheckOptions(t *testing.T) {
	for _, c := range []struct {
		listen, token string
		control       bool
		err           string
	}{
		{"127.0.0.1:8077", "", false, ""},
		{"localhost:0", "", false, ""},
		{"[::1]:8077", "", false, ""},
		{"127.0.0.1:8077", "t", true, ""},
		{"0.0.0.0:8077", "t", false, ""},
		{"0.0.0.0:8077", "", false, "not a loopback address"},
		{":8077", "", false, "not a loopback address"},
		{"crawler.example:8077", "", false, "not a loopback address"},
		{"127.0.0.1:8077", "", true, "--allow-control needs --token"},
		{"127.0.0.1", "", false, "want HOST:PORT"},
	} {
		err := CheckOptions(c.listen, c.token, c.control)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckOptions(%q, %q, %v) = %v, want %q", c.listen, c.token, c.control, err, c.err)
		}
	}
}

// TestPageHeaders: the page and its files come with the security headers
// and the right types; the page holds no inline script.
func TestPageHeaders(t *testing.T) {
	k := newKnown(t)
	now := t0
	s := newServer(t, k, Options{}, &now)
	for path, ctype := range map[string]string{"/": "text/html; charset=utf-8", "/app.js": "text/javascript; charset=utf-8", "/style.css": "text/css; charset=utf-8"} {
		resp := do(t, s, "GET", path, "")
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype {
			t.Errorf("GET %s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", path)
		}
		if path == "/" && (strings.Contains(string(body), "<script>") || !strings.Contains(string(body), `<script src="app.js" defer></script>`)) {
			t.Errorf("the page has inline script, or not its app.js")
		}
		if path == "/app.js" && strings.Contains(string(body), ".innerHTML") {
			t.Errorf("app.js uses innerHTML")
		}
	}
}
