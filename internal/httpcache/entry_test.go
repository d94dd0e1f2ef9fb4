package httpcache

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

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
			if !sendable(name, vals) {
				t.Fatalf("accepted header %q", name)
			}
		}
		again, err := decodeCacheMeta(mustJSON(t, e))
		if err != nil || again.Key != e.Key || again.Status != e.Status || !again.StoredAt.Equal(e.StoredAt) {
			t.Fatalf("round trip: %+v %v", again, err)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConditionalLastModified: If-Modified-Since is the stored
// Last-Modified unless that is a date later than the response's own (its
// Date, else when it was stored). A static file server (Go's
// http.FileServer, python3 -m http.server) sends a file's date as it is,
// one in the future too, and answers 304 to any If-Modified-Since not
// older than the file: sent back, such a date made every later edit of
// the page a 304.
func TestConditionalLastModified(t *testing.T) {
	stored := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, date, lastModified, want string
	}{
		{"years old", "Mon, 07 Dec 2026 22:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT"},
		{"the same second as Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 22:00:00 GMT"},
		{"after Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 22:00:01 GMT", ""},
		{"far in the future", "Mon, 07 Dec 2026 22:00:00 GMT", "Fri, 01 Jan 2100 00:00:00 GMT", ""},
		{"no Date, before it was stored", "", "Mon, 07 Dec 2026 21:00:00 GMT", "Mon, 07 Dec 2026 21:00:00 GMT"},
		{"no Date, after it was stored", "", "Fri, 01 Jan 2100 00:00:00 GMT", ""},
		{"a numeric zone, before Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 23:30:00 +0200", "Mon, 07 Dec 2026 23:30:00 +0200"},
		{"a numeric zone, after Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 22:30:00 +0000", ""},
		{"not a date: sent as it came", "Mon, 07 Dec 2026 22:00:00 GMT", "yesterday", "yesterday"},
		{"none", "Mon, 07 Dec 2026 22:00:00 GMT", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Etag": {`W/"a"`}}
			if tc.date != "" {
				h.Set("Date", tc.date)
			}
			if tc.lastModified != "" {
				h.Set("Last-Modified", tc.lastModified)
			}
			e := &Entry{Header: h, StoredAt: stored}
			inm, ims := e.Conditional()
			if inm != `W/"a"` || ims != tc.want {
				t.Errorf("Conditional() = %q, %q; want %q, %q", inm, ims, `W/"a"`, tc.want)
			}
		})
	}
}
