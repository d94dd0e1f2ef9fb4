package monitor

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// TestPauseOfAnUnknownCrawlIsRefused: pausing (or resuming, or stopping,
// as cqueue stop refuses it) a crawl the frontier does not know answers
// 404 unknown_crawl and sets nothing, so no hidden pause or stop waits
// for a later crawl of that name; a known crawl is
// paused with the time of its pause, and resumed. On SQLite and on a real
// redis-server.
func TestPauseOfAnUnknownCrawlIsRefused(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return filepath.Join(t.TempDir(), "q.db") },
		"redis":  func(t *testing.T) string { return redistest.Start(t) },
	} {
		t.Run(name, func(t *testing.T) { testPauseUnknown(t, dsn(t)) })
	}
}

func testPauseUnknown(t *testing.T, dsn string) {
	k := newKnownIn(t, dsn)
	now := t0
	s := newServer(t, k, Options{Token: token, AllowControl: true}, &now)
	ctx := context.Background()
	post := func(path, crawl string) (int, string) {
		t.Helper()
		resp := do(t, s, "POST", path, `{"crawlid":"`+crawl+`"}`, "Content-Type", "application/json", "Authorization", "Bearer "+token)
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/api/v1/pause", "/api/v1/resume", "/api/v1/stop"} {
		status, body := post(path, "nightly")
		if status != 404 || !strings.Contains(body, `"code":"unknown_crawl"`) || !strings.Contains(body, `no crawl \"nightly\"`) {
			t.Errorf("%s of an unknown crawl: %d %s, want 404 unknown_crawl naming it", path, status, body)
		}
		if m, err := k.fr.CrawlMeta(ctx, "nightly"); err != nil || len(m) != 0 {
			t.Errorf("after %s of an unknown crawl: meta %v, %v; want none", path, m, err)
		}
		if known, err := frontier.CrawlKnown(ctx, k.fr, "nightly"); err != nil || known {
			t.Errorf("after %s of an unknown crawl: the frontier knows it (%v, %v)", path, known, err)
		}
	}

	if status, body := post("/api/v1/pause", "shop"); status != 200 {
		t.Fatalf("pause shop: %d %s", status, body)
	}
	m, _ := k.fr.CrawlMeta(ctx, "shop")
	if m[frontier.MetaPaused] != "1" || m[frontier.MetaPausedAt] != "2030-01-02T03:04:05Z" {
		t.Errorf("after pause: meta %v", m)
	}
	if status, body := post("/api/v1/resume", "shop"); status != 200 {
		t.Fatalf("resume shop: %d %s", status, body)
	}
	m, _ = k.fr.CrawlMeta(ctx, "shop")
	if m[frontier.MetaPaused] != "0" || m[frontier.MetaPausedAt] != "" {
		t.Errorf("after resume: meta %v", m)
	}
	// A crawl known only by its metadata (cqueue crawl keeps some from its
	// start) can be paused.
	if _, err := k.fr.SetCrawlMeta(ctx, "seeded", map[string]string{"round": "1"}, true); err != nil {
		t.Fatal(err)
	}
	if status, body := post("/api/v1/pause", "seeded"); status != 200 {
		t.Errorf("pause of a crawl with metadata only: %d %s", status, body)
	}
}
