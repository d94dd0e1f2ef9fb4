package httpcache

import (
	"encoding/json"
	"testing"
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
