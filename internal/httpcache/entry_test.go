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
// Last-Modified when that is at least a second older than the response
// (its Date, else when it was stored). A static file server (Go's
// http.FileServer, python3 -m http.server) dates a file to the second and
// answers 304 to any If-Modified-Since not older than it: a date of the
// second the page was sent, or one in the future, sent back, made every
// later edit of that second (or until that date) a 304, round after
// round. Then the ETag is not sent either: nginx and busybox httpd make
// it of the same date and the file's size.
func TestConditionalLastModified(t *testing.T) {
	stored := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
	const etag = `W/"a"`
	for _, tc := range []struct {
		name, date, lastModified, want, wantETag string
	}{
		{"years old", "Mon, 07 Dec 2026 22:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", etag},
		{"a second before Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 21:59:59 GMT", "Mon, 07 Dec 2026 21:59:59 GMT", etag},
		{"the same second as Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 22:00:00 GMT", "", ""},
		{"after Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 22:00:01 GMT", "", ""},
		{"far in the future", "Mon, 07 Dec 2026 22:00:00 GMT", "Fri, 01 Jan 2100 00:00:00 GMT", "", ""},
		{"no Date, before it was stored", "", "Mon, 07 Dec 2026 21:00:00 GMT", "Mon, 07 Dec 2026 21:00:00 GMT", etag},
		{"no Date, the second it was stored", "", "Mon, 07 Dec 2026 22:00:00 GMT", "", ""},
		{"no Date, after it was stored", "", "Fri, 01 Jan 2100 00:00:00 GMT", "", ""},
		{"a numeric zone, before Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 23:30:00 +0200", "Mon, 07 Dec 2026 23:30:00 +0200", etag},
		{"a numeric zone, after Date", "Mon, 07 Dec 2026 22:00:00 GMT", "Mon, 07 Dec 2026 22:30:00 +0000", "", ""},
		{"not a date: sent as it came", "Mon, 07 Dec 2026 22:00:00 GMT", "yesterday", "yesterday", etag},
		{"none", "Mon, 07 Dec 2026 22:00:00 GMT", "", "", etag},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Etag": {etag}}
			if tc.date != "" {
				h.Set("Date", tc.date)
			}
			if tc.lastModified != "" {
				h.Set("Last-Modified", tc.lastModified)
			}
			e := &Entry{Header: h, StoredAt: stored}
			inm, ims := e.Conditional()
			if inm != tc.wantETag || ims != tc.want {
				t.Errorf("Conditional() = %q, %q; want %q, %q", inm, ims, tc.wantETag, tc.want)
			}
		})
	}
}
