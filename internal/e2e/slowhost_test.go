package e2e

import (
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// TestOneSlowHostDoesNotHoldBackTheOthers: two fast shops are crawled
// alone, then again beside a slow one (every answer 200 ms late), through
// one loop whose pop holds at most 64 requests in flight. The slow shop's
// requests pile up in flight (cfetch runs 8 of them at once, the rest
// wait); without a host window they fill pop's whole window, and the fast
// shops are crawled at the slow one's pace, a few requests at a time. With
// pop's host window (half the window by default) the fast shops take about
// as long as alone. The bound is relative to the same machine's crawl of
// them alone, and generous, so a slow or busy machine does not fail it.
func TestOneSlowHostDoesNotHoldBackTheOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	rules, err := filepath.Abs("../../testdata/rules/demo.yml")
	if err != nil {
		t.Fatal(err)
	}
	fast := demosite.Options{Products: 300}
	slow := demosite.Options{Products: 300, Latency: 200 * time.Millisecond}

	// crawl crawls the shops, each on a host of its own (the frontier
	// takes turns by host name, not port), and returns how long each took
	// from the crawl's first request to its own last one.
	crawl := func(name string, shops ...demosite.Options) []time.Duration {
		var sites []*demosite.Site
		var seeds string
		for i, o := range shops {
			o.Seed = int64(i + 1)
			s := demosite.New(o)
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", 10+i))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewUnstartedServer(s)
			srv.Listener.Close()
			srv.Listener = ln
			srv.Start()
			t.Cleanup(srv.Close)
			sites = append(sites, s)
			seeds += srv.URL + "/\n"
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "seeds.txt"), []byte(seeds), 0o644); err != nil {
			t.Fatal(err)
		}
		l := &loop{t: t, url: "unused", dir: dir, bin: bin, db: "--db " + filepath.Join(dir, "crawl.db")}
		l.run("cqueue push -q $DB --crawlid " + name + " seeds.txt")
		l.run(`set -o pipefail; cqueue pop -q $DB --follow --window 64 --lease 1m | cfetch -q --concurrency 16 |
			cextract -q -r ` + rules + ` | cexport -q -o items.jsonl | cqueue push -q $DB`)
		var start time.Time
		ends := make([]time.Time, len(sites))
		for i, s := range sites {
			if st := s.Stats(); st.Duplicates != 0 {
				t.Errorf("%s: shop %d: %d duplicate requests", name, i, st.Duplicates)
			}
			for _, r := range s.Requests() {
				if start.IsZero() || r.Time.Before(start) {
					start = r.Time
				}
				if r.Time.After(ends[i]) {
					ends[i] = r.Time
				}
			}
		}
		took := make([]time.Duration, len(sites))
		for i, end := range ends {
			took[i] = end.Sub(start)
		}
		return took
	}
	alone := crawl("alone", fast, fast)
	mixed := crawl("mixed", fast, fast, slow)
	aloneDone, mixedDone := max(alone[0], alone[1]), max(mixed[0], mixed[1])
	t.Logf("the fast shops took %v alone, %v beside the slow one (which took %v)",
		aloneDone.Round(time.Millisecond), mixedDone.Round(time.Millisecond), mixed[2].Round(time.Millisecond))
	if limit := aloneDone*3/2 + time.Second; mixedDone > limit {
		t.Errorf("beside a slow shop the fast ones took %v, more than %v: they were held to its pace", mixedDone, limit)
	}
}
