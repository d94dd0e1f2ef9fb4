package httpcache

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

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

func TestRFCFreshness(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	date := now.Add(-time.Hour).Format(http.TimeFormat)
	entry := func(status int, kv ...string) *Entry {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Add(kv[i], kv[i+1])
		}
		return &Entry{Status: status, Header: h, StoredAt: now.Add(-time.Hour)}
	}
	req := http.Header{}
	tests := []struct {
		name  string
		e     *Entry
		req   http.Header
		fresh bool
	}{
		{"max-age not reached", entry(200, "Cache-Control", "max-age=7200"), req, true},
		{"max-age passed", entry(200, "Cache-Control", "max-age=1800"), req, false},
		{"Age counts", entry(200, "Cache-Control", "max-age=7200", "Age", "3601"), req, false},
		{"Expires after Date", entry(200, "Date", date, "Expires", now.Add(time.Hour).Format(http.TimeFormat)), req, true},
		{"Expires passed", entry(200, "Date", date, "Expires", now.Add(-time.Minute).Format(http.TimeFormat)), req, false},
		{"invalid Expires is expired", entry(200, "Expires", "0"), req, false},
		// No heuristic freshness: a page whose Last-Modified is years old
		// (a static file server's) is not fresh for a tenth of that.
		{"no heuristic from Last-Modified", entry(200, "Date", date, "Last-Modified", now.Add(-time.Hour-20*24*time.Hour).Format(http.TimeFormat)), req, false},
		{"nothing to go on", entry(200), req, false},
		{"permanent redirect without a lifetime", entry(301), req, false},
		{"permanent redirect with max-age", entry(301, "Cache-Control", "max-age=7200"), req, true},
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
