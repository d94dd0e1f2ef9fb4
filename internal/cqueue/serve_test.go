package cqueue

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// TestServe: cqueue serve over an SQLite frontier answers the API on the
// address it reports, the token from CQUEUE_SERVE_TOKEN guards an action,
// and an interrupt ends it (130).
func TestServe(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "q.db")
	if _, errs, code := run(t, "https://a.example/1\nhttps://a.example/2\n", "push", "-q", "--db", path, "--crawlid", "shop"); code != 0 {
		t.Fatalf("push: %s", errs)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var out, errb lockedBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- executeEnv(ctx, map[string]string{"CQUEUE_SERVE_TOKEN": "tok-123"}, []string{"serve", "--db", path, "--listen", "127.0.0.1:0", "--allow-control", "--sample", "50ms"},
			strings.NewReader(""), &out, &errb)
	}()
	addr := regexp.MustCompile(`serving the crawl monitor on (http://127\.0\.0\.1:\d+/) \(control allowed with the token\)`)
	var base string
	waitFor(t, "the serving line", func() bool {
		m := addr.FindStringSubmatch(errb.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	})
	var crawls struct {
		Crawls []struct {
			CrawlID string
			Queued  int64
		}
	}
	waitFor(t, "the first sample", func() bool {
		resp, err := http.Get(base + "api/v1/crawls")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&crawls) == nil
	})
	if len(crawls.Crawls) != 1 || crawls.Crawls[0].CrawlID != "shop" || crawls.Crawls[0].Queued != 2 {
		t.Errorf("crawls: %+v", crawls)
	}
	post := func(tok string) int {
		req, _ := http.NewRequest("POST", base+"api/v1/stop", strings.NewReader(`{"crawlid":"shop"}`))
		req.Header.Set("Content-Type", "application/json")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(""); code != 401 {
		t.Errorf("stop without the token: %d", code)
	}
	if code := post("tok-123"); code != 200 {
		t.Errorf("stop with the token: %d", code)
	}
	if info, _, _ := run(t, "", "info", "--db", path); !strings.Contains(info, `"state":"stopped"`) || !strings.Contains(info, `"queued":0`) {
		t.Errorf("after the stop: %s", info)
	}
	cancel(cli.ErrInterrupted) // as cli.Main does on SIGINT
	select {
	case code := <-exited:
		if code != 130 || out.String() != "" {
			t.Errorf("serve exited %d, stdout %q; stderr %s", code, out.String(), errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not end when interrupted")
	}
}
