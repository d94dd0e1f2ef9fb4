package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/storage"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// TestStatsTo: with --stats-to (here from CRAWLUTILS_STATS_TO, as a
// hand-built loop sets it) a command publishes its stats to the store at
// its start and every --stats-every, named by the crawl
// (CRAWLUTILS_STATS_CRAWLID), and a last time at its end, with its exit
// status.
func TestStatsTo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	db, err := storage.OpenDB(context.Background(), path, 0) // a WAL file, as the frontier's
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	var stderr bytes.Buffer
	tool := NewTool("ctest", &stderr)
	tool.OpenStats = toolstats.OpenSink
	tool.Getenv = mapEnv(map[string]string{"CRAWLUTILS_STATS_TO": path, "CRAWLUTILS_STATS_CRAWLID": "shop"})
	tool.Sub = "sub"
	if _, code, done := tool.NewFlags(Help{}).Parse([]string{"-q", "--stats-every", "10ms"}, new(bytes.Buffer)); done {
		t.Fatalf("Parse: %d", code)
	}
	store, err := toolstats.Open(context.Background(), path, toolstats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	list := func() []statspub.Snapshot {
		t.Helper()
		s, err := store.List(context.Background(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tool.StartProgress(time.Hour, nil)
	tool.Stats.In.Add(3)
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := list()
		if len(s) == 1 && strings.Contains(string(s[0].Stats), `"in":3`) {
			if s[0].Tool != "ctest sub" || s[0].CrawlID != "shop" || s[0].EveryMS != 100 || s[0].Exited { // at least 100ms
				t.Fatalf("snapshot %+v", s[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stats were not published while the command ran: %+v", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
	tool.Stats.In.Add(1)
	tool.MarkPartial()
	if code := tool.Finish(context.Background()); code != ExitPartial {
		t.Fatalf("exit %d", code)
	}
	s := list()
	var st StatsJSON
	if len(s) != 1 || !s[0].Exited || s[0].Exit == nil || *s[0].Exit != ExitPartial || json.Unmarshal(s[0].Stats, &st) != nil || st.In != 4 {
		t.Fatalf("the last snapshot: %+v", s)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr.String())
	}
}

// TestStatsToNoStore: a store that cannot be used (no such file: a tool
// never creates the frontier) is said once, and the command goes on and
// exits as it would have.
func TestStatsToNoStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.db")
	var stderr bytes.Buffer
	tool := NewTool("ctest", &stderr)
	tool.OpenStats = toolstats.OpenSink
	if _, code, done := tool.NewFlags(Help{}).Parse([]string{"-q", "--stats-to", path, "--stats-every", "5ms"}, new(bytes.Buffer)); done {
		t.Fatalf("Parse: %d", code)
	}
	tool.StartProgress(time.Hour, nil)
	time.Sleep(50 * time.Millisecond)
	if code := tool.Finish(context.Background()); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "ctest: warning: --stats-to "+path+": ") ||
		!strings.Contains(got, "no such frontier") {
		t.Errorf("stderr: %q", got)
	}
}

// TestStatsToNoPasswordShown: a Redis URL's password is not in the
// warning.
func TestStatsToNoPasswordShown(t *testing.T) {
	var stderr bytes.Buffer
	tool := NewTool("ctest", &stderr)
	tool.OpenStats = toolstats.OpenSink
	if _, code, done := tool.NewFlags(Help{}).Parse([]string{"-q", "--stats-to", "redis://user:s3cret@127.0.0.1:1/0"}, new(bytes.Buffer)); done {
		t.Fatalf("Parse: %d", code)
	}
	tool.StartProgress(time.Hour, nil)
	if code := tool.Finish(context.Background()); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if got := stderr.String(); strings.Contains(got, "s3cret") || strings.Count(got, "warning: --stats-to redis://user:") != 1 || strings.Contains(got, "canceled") {
		t.Errorf("stderr: %q", got)
	}
}
