package cfetch

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParseRefresh(t *testing.T) {
	tests := []struct {
		in   string
		wait time.Duration
		url  string
		ok   bool
	}{
		{"5; url=/next", 5 * time.Second, "/next", true},
		{"0;URL='http://a.test/x y'", 0, "http://a.test/x y", true},
		{` 1.5 , URL = "/q?a=1" `, 1500 * time.Millisecond, "/q?a=1", true},
		{"3; /plain", 3 * time.Second, "/plain", true},
		{"10", 0, "", false},
		{"10;", 0, "", false},
		{"url=/x", 0, "", false},
		{"-1; url=/x", 0, "", false},
		{"1e3; url=/x", 0, "", false},
	}
	for _, tt := range tests {
		wait, u, ok := parseRefresh(tt.in)
		if wait != tt.wait || u != tt.url || ok != tt.ok {
			t.Errorf("parseRefresh(%q) = %s %q %v, want %s %q %v", tt.in, wait, u, ok, tt.wait, tt.url, tt.ok)
		}
	}
}

func TestFindMetaRefresh(t *testing.T) {
	tests := []struct {
		page, url string
	}{
		{`<html><head><meta http-equiv="refresh" content="0; url=/moved"></head></html>`, "/moved"},
		{`<html><head><META HTTP-EQUIV=Refresh CONTENT="2;URL=/b"></head></html>`, "/b"},
		{`<noscript><meta http-equiv="refresh" content="0; url=/nojs"></noscript><p>x</p>`, ""},
		{`<script>var s = '<meta http-equiv="refresh" content="0; url=/js">';</script>`, ""},
		{`<meta http-equiv="refresh" content="30">`, ""},
		{`<meta name="refresh" content="0; url=/x">`, ""},
	}
	for _, tt := range tests {
		_, u, _ := findMetaRefresh([]byte(tt.page))
		if u != tt.url {
			t.Errorf("findMetaRefresh(%q) = %q, want %q", tt.page, u, tt.url)
		}
	}
}

// FuzzParseRefresh: what it accepts has a URL and a delay of 0 or more.
func FuzzParseRefresh(f *testing.F) {
	for _, s := range []string{"5; url=/next", "0;URL='x'", "1.5, y", "10", ";;", "9999999999999; url=a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		wait, u, ok := parseRefresh(s)
		if ok && (u == "" || wait < 0) || !ok && (u != "" || wait != 0) {
			t.Fatalf("parseRefresh(%q) = %s %q %v", s, wait, u, ok)
		}
		findMetaRefresh([]byte(`<meta http-equiv="refresh" content="` + s + `">`))
	})
}

func TestParseCacheControl(t *testing.T) {
	cc := parseCacheControl([]string{`max-age=60, No-Cache="Set-Cookie, X", private`, `max-age=5, s-maxage="30"`})
	if cc["max-age"] != "60" || cc["no-cache"] != "Set-Cookie, X" || cc["s-maxage"] != "30" || len(cc) != 4 {
		t.Errorf("%q", cc)
	}
	if _, ok := cc["private"]; !ok {
		t.Error("private missing")
	}
}

// FuzzParseCacheControl: directive names are lower-case, trimmed and not
// empty.
func FuzzParseCacheControl(f *testing.F) {
	for _, s := range []string{`max-age=60, no-cache="a,b"`, `,,,`, `"unclosed, x=1`, `a=\"b`, `MAX-AGE = 5`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for k := range parseCacheControl([]string{s}) {
			if k == "" || k != strings.ToLower(strings.TrimSpace(k)) {
				t.Fatalf("parseCacheControl(%q): directive %q", s, k)
			}
		}
	})
}

// FuzzCacheMeta: a metadata file is refused, or is a usable entry that
// encodes back to the same entry.
func FuzzCacheMeta(f *testing.F) {
	f.Add([]byte(`{"key":"0123456789abcdef0123456789abcdef01234567","method":"GET","url":"http://a/","status":200,"headers":{"Content-Type":["text/html"]},"stored_at":"2026-01-01T00:00:00Z","body_size":5,"body_sha1":"x"}`))
	f.Add([]byte(`{"key":"x","status":99}`))
	f.Add([]byte(`{"key":"0123456789abcdef0123456789abcdef01234567","method":"GET","url":"u","status":200,"headers":{"Bad Name":["v"]},"stored_at":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeCacheMeta(b)
		if err != nil {
			return
		}
		if e.Status < 100 || e.Status > 599 || e.Size < 0 || len(e.Key) != 40 {
			t.Fatalf("accepted %+v", e)
		}
		for name, vals := range e.Header {
			if checkHeader(name, vals) != nil {
				t.Fatalf("accepted header %q", name)
			}
		}
		again, err := decodeCacheMeta(mustJSON(t, e))
		if err != nil || again.Key != e.Key || again.Status != e.Status || !again.StoredAt.Equal(e.StoredAt) {
			t.Fatalf("round trip: %+v %v", again, err)
		}
	})
}

func TestRFCFreshness(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	date := now.Add(-time.Hour).Format(http.TimeFormat)
	entry := func(status int, kv ...string) *cacheEntry {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Add(kv[i], kv[i+1])
		}
		return &cacheEntry{Status: status, Header: h, StoredAt: now.Add(-time.Hour)}
	}
	req := http.Header{}
	tests := []struct {
		name  string
		e     *cacheEntry
		req   http.Header
		fresh bool
	}{
		{"max-age not reached", entry(200, "Cache-Control", "max-age=7200"), req, true},
		{"max-age passed", entry(200, "Cache-Control", "max-age=1800"), req, false},
		{"Age counts", entry(200, "Cache-Control", "max-age=7200", "Age", "3601"), req, false},
		{"Expires after Date", entry(200, "Date", date, "Expires", now.Add(time.Hour).Format(http.TimeFormat)), req, true},
		{"Expires passed", entry(200, "Date", date, "Expires", now.Add(-time.Minute).Format(http.TimeFormat)), req, false},
		{"invalid Expires is expired", entry(200, "Expires", "0"), req, false},
		{"heuristic: a tenth since Last-Modified", entry(200, "Date", date, "Last-Modified", now.Add(-time.Hour-20*24*time.Hour).Format(http.TimeFormat)), req, true},
		{"nothing to go on", entry(200), req, false},
		{"permanent redirect", entry(301), req, true},
		{"no-cache", entry(200, "Cache-Control", "max-age=7200, no-cache"), req, false},
		{"request no-cache", entry(200, "Cache-Control", "max-age=7200"), http.Header{"Cache-Control": {"no-cache"}}, false},
		{"request max-age", entry(200, "Cache-Control", "max-age=7200"), http.Header{"Cache-Control": {"max-age=60"}}, false},
		{"request max-stale", entry(200, "Cache-Control", "max-age=1800"), http.Header{"Cache-Control": {"max-stale=3600"}}, true},
		{"max-stale, but must-revalidate", entry(200, "Cache-Control", "max-age=1800, must-revalidate"), http.Header{"Cache-Control": {"max-stale"}}, false},
	}
	for _, tt := range tests {
		if got := rfcFresh(tt.e, tt.req, now); got != tt.fresh {
			t.Errorf("%s: fresh = %v", tt.name, got)
		}
	}
	for _, tt := range []struct {
		name   string
		status int
		h      http.Header
		want   bool
	}{
		{"200 with ETag", 200, http.Header{"Etag": {`"x"`}}, true},
		{"200 without validator", 200, http.Header{}, false},
		{"200 with max-age", 200, http.Header{"Cache-Control": {"max-age=5"}}, true},
		{"no-store", 200, http.Header{"Cache-Control": {"no-store, max-age=5"}}, false},
		{"301", 301, http.Header{}, true},
		{"404 without lifetime", 404, http.Header{}, false},
	} {
		if got := rfcStorable(http.Header{}, tt.status, tt.h); got != tt.want {
			t.Errorf("%s: storable = %v", tt.name, got)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
