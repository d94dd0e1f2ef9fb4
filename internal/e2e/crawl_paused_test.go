package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuilder is a strings.Builder the test reads while a command
// writes it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedBuilder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuilder) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A crawl paused while its run is under way: the run says so on stderr
// and waits; interrupted while paused, its account says the crawl is
// paused and how to go on. The next run (last night's cron line) does
// nothing, says since when the crawl is paused and how to resume it, and
// exits 6; a run given --resume clears the pause and crawls to the end.
func TestCrawlPausedSaysSo(t *testing.T) {
	slow := loopSite
	slow.Latency = 20 * time.Millisecond
	l := crawlEndSetup(t, slow)
	wd, _ := os.Getwd()
	c := l.cmd(`cd "$W" && exec cqueue crawl --stats paused.json --cfetch '--concurrency 2' seeds.txt "$RULES" items-0.jsonl`)
	c.Env = append(c.Env, "RULES="+filepath.Join(wd, "../../testdata/rules/demo.yml"))
	var stdout strings.Builder
	var stderr lockedBuilder
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	l.waitRequests(10, 5*time.Minute)
	l.setPaused("items-0.jsonl.db", "items-0", true)
	told := `crawl "items-0" is paused (cqueue serve's Pause) since ` + pausedAt + `: fetching nothing until it is resumed`
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(stderr.String(), told) {
		if time.Now().After(deadline) {
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			t.Fatalf("the run never said its crawl is paused:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(c.Process.Pid, syscall.SIGTERM)
	r := l.wait(c, &stdout, &stderr)
	r.want(t, 130, `the crawl is paused (cqueue serve's Pause) since `+pausedAt+`: the next run does nothing (exit 6) until then; resume it with cqueue serve's Resume`)
	var s struct {
		PausedAt string `json:"paused_at"`
	}
	if b, err := os.ReadFile(filepath.Join(l.dir, "paused.json")); err != nil || json.Unmarshal(b, &s) != nil {
		t.Fatalf("--stats paused.json: %v: %s", err, b)
	}
	if s.PausedAt != pausedAt {
		t.Errorf("--stats of the run ended paused: paused_at %q, want %q", s.PausedAt, pausedAt)
	}

	// Run again as cron would: nothing done, and said why and how to go on.
	before := l.site.Stats().Requests
	l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`).want(t, 6,
		`cqueue: crawl "items-0" is paused (cqueue serve's Pause) since `+pausedAt+`, with `,
		`this run does nothing. To go on, resume it with cqueue serve's Resume (or POST /api/v1/resume {"crawlid":…}), or run the same command with --resume`)
	if n := l.site.Stats().Requests; n != before {
		t.Errorf("a run of a paused crawl made %d requests", n-before)
	}
	l.runCrawl(`--resume seeds.txt "$RULES" items-0.jsonl`).want(t, 0, `crawl "items-0": paused since `+pausedAt+`, resumed (--resume)`, "complete: nothing is left queued or in flight")
	l.checkItems()
}
