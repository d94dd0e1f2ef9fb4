package monitor

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func TestMain(m *testing.M) {
	code := m.Run()
	redistest.StopShared() // the Redis Cluster of TestTools
	os.Exit(code)
}

// hostileURL is a crawled URL built to run script if a page ever takes it
// for HTML.
const hostileURL = `http://evil.test/<script>window.pwned=1</script><img src=x onerror="window.pwned=1">`

// known is a frontier holding a known crawl, "shop": a.test with 3
// requests queued, 1 in flight (held by a consumer) and 1 dead
// (invalid_record, the hostile URL), b.test with 2 queued; and a second
// crawl, "other", with 1 queued.
type known struct {
	fr       frontier.Frontier
	dsn      string // the store: an SQLite path or a Redis URL
	consumer frontier.Consumer
	lease    string // of the request in flight
}

func newKnown(t *testing.T) *known {
	t.Helper()
	return newKnownIn(t, filepath.Join(t.TempDir(), "q.db"))
}

// newKnownIn makes the known crawl in the store dsn names.
func newKnownIn(t *testing.T, dsn string) *known {
	t.Helper()
	ctx := context.Background()
	fr, err := frontier.Open(ctx, dsn, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fr.Close() })
	entry := func(url, crawl string) frontier.Entry {
		e, err := frontier.NewEntry(record.Request{Kind: record.KindRequest, URL: url, CrawlID: crawl, AppID: "app"}, frontier.KeyFast)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	// The hostile one first, so it is popped and failed first.
	if _, err := fr.Push(ctx, []frontier.Entry{entry(hostileURL, "shop")}, t0); err != nil {
		t.Fatal(err)
	}
	r, err := fr.Pop(ctx, frontier.PopOptions{Max: 1, Lease: time.Minute}, t0)
	if err != nil || len(r.Leased) != 1 {
		t.Fatalf("pop: %+v %v", r, err)
	}
	if _, err := fr.Apply(ctx, frontier.Batch{Fails: []frontier.Fail{{Lease: r.Leased[0].Lease, Reason: "invalid_record"}}}, t0); err != nil {
		t.Fatal(err)
	}
	var es []frontier.Entry
	for _, u := range []string{"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4"} {
		es = append(es, entry(u, "shop"))
	}
	if _, err := fr.Push(ctx, es, t0); err != nil {
		t.Fatal(err)
	}
	c, err := fr.Join(ctx, frontier.Consumer{Host: "worker-1", PID: 4242}, t0)
	if err != nil {
		t.Fatal(err)
	}
	r, err = fr.Pop(ctx, frontier.PopOptions{Max: 1, Lease: time.Minute, Consumer: c}, t0)
	if err != nil || len(r.Leased) != 1 {
		t.Fatalf("pop: %+v %v", r, err)
	}
	es = []frontier.Entry{entry("http://b.test/1", "shop"), entry("http://b.test/2", "shop"), entry("http://c.test/1", "other")}
	if _, err := fr.Push(ctx, es, t0); err != nil {
		t.Fatal(err)
	}
	return &known{fr: fr, dsn: dsn, consumer: c, lease: r.Leased[0].Lease}
}

// newServer returns a Server over k's frontier with o's settings (Listen
// defaults to loopback), its clock at *now.
func newServer(t *testing.T, k *known, o Options, now *time.Time) *Server {
	t.Helper()
	o.Frontier, o.Store = k.fr, "sqlite"
	if o.Listen == "" {
		o.Listen = "127.0.0.1:8077"
	}
	o.Now = func() time.Time { return *now }
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// do sends one request to s's handler, as a browser on the same origin
// would unless headers say otherwise, and returns the answer.
func do(t *testing.T, s *Server, method, target, body string, headers ...string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://127.0.0.1:8077"+target, r)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w.Result()
}

// getJSON GETs target and decodes its JSON answer, requiring 200 and the
// JSON content type.
func getJSON(t *testing.T, s *Server, target string, v any, headers ...string) {
	t.Helper()
	resp := do(t, s, "GET", target, "", headers...)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", target, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET %s: Content-Type %q", target, ct)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", target, err, body)
	}
}
