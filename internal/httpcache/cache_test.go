package httpcache

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// t0 is the fake clock's start; the tests move it by hand.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testCache opens a cache in a temporary directory and records its events.
func testCache(t *testing.T, o Options) (*Cache, *[]string) {
	t.Helper()
	o.Dir = filepath.Join(t.TempDir(), "cache")
	c, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	c.Count = func(e string) { events = append(events, e) }
	return c, &events
}

func get(url string, kv ...string) *Request {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return &Request{Method: http.MethodGet, URL: url, Header: h}
}

func resp(status int, body string, kv ...string) *Response {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return &Response{Status: status, Header: h, Body: []byte(body)}
}

// TestKeyAndLayout pins the on-disk format: the key, the two files and
// the metadata's fields, so that caches written before still read.
func TestKeyAndLayout(t *testing.T) {
	key := Key("POST", "http://a.test/x", "q=1")
	if key != sha1Hex("POST http://a.test/x\nq=1") {
		t.Fatalf("Key = %s", key)
	}
	c, _ := testCache(t, Options{})
	r := &Request{Method: "POST", URL: "http://a.test/x", Body: "q=1"}
	c.Store(r, resp(200, "hello", "Content-Type", "text/plain"), t0)
	base := filepath.Join(c.dir, key[:2], key)
	body, err := os.ReadFile(base + ".body")
	if err != nil || string(body) != "hello" {
		t.Fatalf("body file: %q %v", body, err)
	}
	meta, err := os.ReadFile(base + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(meta, &fields); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"key": key, "method": "POST", "url": "http://a.test/x", "status": 200.0,
		"headers":   map[string]any{"Content-Type": []any{"text/plain"}},
		"stored_at": "2026-03-01T12:00:00Z", "body_size": 5.0, "body_sha1": sha1Hex("hello"),
	}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("metadata\n got %v\nwant %v", fields, want)
	}
	if !strings.HasSuffix(string(meta), "}\n") {
		t.Errorf("metadata does not end in a newline: %q", meta)
	}
}

// TestDummyLookup: every response is stored and answers until Expire.
func TestDummyLookup(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		store  *Response // nil: nothing stored
		after  time.Duration
		found  bool
		events string
	}{
		{"miss", Options{}, nil, 0, false, "miss"},
		{"hit", Options{}, resp(200, "x"), time.Hour, true, "stored hit"},
		{"a 500 too", Options{}, resp(500, "x"), 0, true, "stored hit"},
		{"ignored code", Options{IgnoreCodes: []int{503}}, resp(503, "x"), 0, false, "miss"},
		{"before expiry", Options{Expire: time.Hour}, resp(200, "x"), time.Hour - time.Second, true, "stored hit"},
		{"expired", Options{Expire: time.Hour}, resp(200, "x"), time.Hour, false, "stored miss"},
		{"no body", Options{}, &Response{Status: 302, Header: http.Header{"Location": {"/b"}}}, 0, true, "stored hit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, events := testCache(t, tt.opts)
			r := get("http://a.test/")
			if tt.store != nil {
				c.Store(r, tt.store, t0)
			}
			e, fresh := c.Lookup(r, t0.Add(tt.after))
			if (e != nil) != tt.found || fresh != tt.found {
				t.Fatalf("Lookup = %v, %v", e, fresh)
			}
			if e != nil && (e.Status != tt.store.Status || string(e.Body) != string(tt.store.Body)) {
				t.Errorf("entry %d %q", e.Status, e.Body)
			}
			if got := strings.Join(*events, " "); got != tt.events {
				t.Errorf("events %q, want %q", got, tt.events)
			}
		})
	}
}

// TestRFC9111Revalidates: without Options.Fresh, every entry is asked
// of the server again, however fresh its headers say it is.
func TestRFC9111Revalidates(t *testing.T) {
	lm := t0.Add(-5 * 365 * 24 * time.Hour).Format(http.TimeFormat)
	for _, tt := range []struct {
		name  string
		store *Response
	}{
		{"max-age", resp(200, "x", "Cache-Control", "max-age=3600", "ETag", `"v1"`)},
		{"Expires", resp(200, "x", "Expires", t0.Add(time.Hour).Format(http.TimeFormat), "Date", t0.Format(http.TimeFormat))},
		{"Last-Modified years ago", resp(200, "x", "Last-Modified", lm)},
		{"permanent redirect", resp(301, "", "Location", "/b")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, events := testCache(t, Options{Policy: RFC9111})
			r := get("http://a.test/")
			c.Store(r, tt.store, t0)
			e, fresh := c.Lookup(r, t0.Add(time.Second))
			if e == nil || fresh {
				t.Fatalf("Lookup = %v, %v; want an entry to revalidate", e, fresh)
			}
			if got := strings.Join(*events, " "); got != "stored stale" {
				t.Errorf("events %q", got)
			}
		})
	}
}

// TestRFC9111Lookup: what is stored, and, with Options.Fresh, when it
// answers without the server.
func TestRFC9111Lookup(t *testing.T) {
	lm := t0.Add(-24 * time.Hour).Format(http.TimeFormat)
	tests := []struct {
		name   string
		req    *Request
		store  *Response
		after  time.Duration
		found  bool // an entry, fresh or stale
		fresh  bool
		events string
	}{
		{"no validator: not stored", get("http://a.test/"), resp(200, "x"), 0, false, false, "miss"},
		{"max-age: fresh", get("http://a.test/"), resp(200, "x", "Cache-Control", "max-age=60"), 59 * time.Second, true, true, "stored hit"},
		{"max-age: stale", get("http://a.test/"), resp(200, "x", "Cache-Control", "max-age=60"), 60 * time.Second, true, false, "stored stale"},
		{"ETag alone: stale at once", get("http://a.test/"), resp(200, "x", "ETag", `"v1"`), 0, true, false, "stored stale"},
		{"Last-Modified: no heuristic freshness", get("http://a.test/"), resp(200, "x", "Last-Modified", lm), 2 * time.Hour, true, false, "stored stale"},
		{"no-store", get("http://a.test/"), resp(200, "x", "Cache-Control", "no-store, max-age=60"), 0, false, false, "miss"},
		{"request no-cache", get("http://a.test/", "Cache-Control", "no-cache"), resp(200, "x", "Cache-Control", "max-age=60"), 0, true, false, "stored stale"},
		{"304 is not stored", get("http://a.test/"), resp(304, "", "ETag", `"v1"`), 0, false, false, "miss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, events := testCache(t, Options{Policy: RFC9111, Fresh: true})
			c.Store(tt.req, tt.store, t0)
			e, fresh := c.Lookup(tt.req, t0.Add(tt.after))
			if (e != nil) != tt.found || fresh != tt.fresh {
				t.Fatalf("Lookup = %v, %v; want found %v, fresh %v", e, fresh, tt.found, tt.fresh)
			}
			if got := strings.Join(*events, " "); got != tt.events {
				t.Errorf("events %q, want %q", got, tt.events)
			}
		})
	}
}

func TestCacheable(t *testing.T) {
	post := &Request{Method: http.MethodPost, URL: "http://a.test/"}
	tests := []struct {
		policy string
		req    *Request
		want   bool
	}{
		{Dummy, post, true},
		{Dummy, get("http://a.test/", "Cache-Control", "no-store"), true},
		{RFC9111, post, false},
		{RFC9111, &Request{Method: http.MethodHead, URL: "http://a.test/"}, true},
		{RFC9111, get("http://a.test/"), true},
		{RFC9111, get("http://a.test/", "Cache-Control", "no-store"), false},
	}
	for _, tt := range tests {
		c, _ := testCache(t, Options{Policy: tt.policy})
		if got := c.Cacheable(tt.req); got != tt.want {
			t.Errorf("%s %s %v: Cacheable = %v", tt.policy, tt.req.Method, tt.req.Header, got)
		}
	}
}

// TestRevalidated: a 304 makes a stale entry fresh again, its headers
// updated from the 304's and stored — or left as stored when the entry is
// revalidated every time anyway and the validators are the same.
func TestRevalidated(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		stored    *Response
		notMod    http.Header
		rewritten bool
		header    http.Header // the entry's afterwards (Date aside)
	}{
		{
			"max-age, --cache-fresh: headers updated, stored again", Options{Policy: RFC9111, Fresh: true},
			resp(200, "x", "Cache-Control", "max-age=60", "ETag", `"v1"`, "Content-Type", "text/html"),
			http.Header{"Cache-Control": {"max-age=120"}, "Etag": {`"v1"`}, "Content-Type": {"text/plain"}, "X-New": {"1"}},
			true,
			http.Header{"Cache-Control": {"max-age=120"}, "Etag": {`"v1"`}, "Content-Type": {"text/html"}, "X-New": {"1"}},
		},
		{
			"max-age, same ETag: not written (revalidated every time)", Options{Policy: RFC9111},
			resp(200, "x", "Cache-Control", "max-age=60", "ETag", `"v1"`),
			http.Header{"Etag": {`"v1"`}, "X-New": {"1"}},
			false,
			http.Header{"Cache-Control": {"max-age=60"}, "Etag": {`"v1"`}},
		},
		{
			"no-cache, same ETag: not written", Options{Policy: RFC9111, Fresh: true},
			resp(200, "x", "Cache-Control", "no-cache", "ETag", `"v1"`),
			http.Header{"Etag": {`"v1"`}, "X-New": {"1"}},
			false,
			http.Header{"Cache-Control": {"no-cache"}, "Etag": {`"v1"`}},
		},
		{
			"no-cache, new ETag: written", Options{Policy: RFC9111},
			resp(200, "x", "Cache-Control", "no-cache", "ETag", `"v1"`),
			http.Header{"Etag": {`"v2"`}},
			true,
			http.Header{"Cache-Control": {"no-cache"}, "Etag": {`"v2"`}},
		},
		{
			"no-cache with --cache-expire: written", Options{Policy: RFC9111, Expire: 24 * time.Hour},
			resp(200, "x", "Cache-Control", "no-cache", "ETag", `"v1"`),
			http.Header{"Etag": {`"v1"`}},
			true,
			http.Header{"Cache-Control": {"no-cache"}, "Etag": {`"v1"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, events := testCache(t, tt.opts)
			r := get("http://a.test/")
			c.Store(r, tt.stored, t0)
			later := t0.Add(10 * time.Minute)
			e, fresh := c.Lookup(r, later)
			if e == nil || fresh {
				t.Fatalf("Lookup = %v, %v; want a stale entry", e, fresh)
			}
			if inm, _ := e.Conditional(); inm != `"v1"` {
				t.Errorf("If-None-Match %q", inm)
			}
			c.Revalidated(e, tt.notMod, later)
			if !reflect.DeepEqual(e.Header, tt.header) || string(e.Body) != "x" {
				t.Errorf("entry %v %q, want %v", e.Header, e.Body, tt.header)
			}
			again, _ := c.Lookup(r, later)
			if again == nil || again.StoredAt.Equal(later) != tt.rewritten || !reflect.DeepEqual(again.Header, tt.header) {
				t.Errorf("stored again: %v (stored at %s, header %v), want rewritten %v", again != nil, again.StoredAt, again.Header, tt.rewritten)
			}
			if got := strings.Join(*events, " "); !strings.Contains(got, "stale revalidated") {
				t.Errorf("events %q", got)
			}
		})
	}
}

func TestMustRevalidate(t *testing.T) {
	for cc, want := range map[string]bool{"max-age=60, must-revalidate": true, "max-age=60": false, "": false} {
		e := &Entry{Header: http.Header{"Cache-Control": {cc}}}
		if got := e.MustRevalidate(); got != want {
			t.Errorf("%q: MustRevalidate = %v", cc, got)
		}
	}
}

// TestBrokenEntryIsAMiss: an entry whose files do not agree is a miss.
func TestBrokenEntryIsAMiss(t *testing.T) {
	other := get("http://a.test/other")
	var c *Cache
	for name, spoil := range map[string]func(meta, body string) error{
		"body missing":   func(_, body string) error { return os.Remove(body) },
		"body truncated": func(_, body string) error { return os.WriteFile(body, []byte("he"), 0o644) },
		"meta garbage":   func(meta, _ string) error { return os.WriteFile(meta, []byte("{"), 0o644) },
		"meta of another key": func(meta, _ string) error {
			otherMeta, _ := c.paths(Key(other.Method, other.URL, ""))
			b, err := os.ReadFile(otherMeta)
			if err != nil {
				return err
			}
			return os.WriteFile(meta, b, 0o644)
		},
	} {
		var events *[]string
		c, events = testCache(t, Options{})
		r := get("http://a.test/")
		c.Store(r, resp(200, "hello"), t0)
		c.Store(other, resp(200, "hello"), t0)
		meta, body := c.paths(Key(r.Method, r.URL, r.Body))
		if err := spoil(meta, body); err != nil {
			t.Fatal(err)
		}
		if e, _ := c.Lookup(r, t0); e != nil || (*events)[len(*events)-1] != "miss" {
			t.Errorf("%s: Lookup = %v, events %q", name, e, *events)
		}
	}
}

func sha1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
