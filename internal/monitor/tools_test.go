package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// toolSnap is a snapshot of tool (pid) for crawl, taken at, its stats
// the JSON given.
func toolSnap(tool string, pid int, crawl string, at time.Time, everyMS int64, stats string) statspub.Snapshot {
	return statspub.Snapshot{CrawlID: crawl, Tool: tool, Host: "worker-1", PID: pid, At: at, EveryMS: everyMS, Stats: json.RawMessage(stats)}
}

const hostileCrawl = `<img src=x onerror="window.pwned=1">`

// TestTools: over a frontier holding the known crawl and a store holding
// known snapshots of the tools' stats, sampled twice with new snapshots
// in between, /tools lists the live tools with their state, age, stats
// and rates, the HTTP errors, drops and refusals by reason, and /crawls
// and /series carry items/s and HTTP errors/s: on SQLite, on a real
// redis-server and on a Redis Cluster (the snapshots in the frontier's
// slot).
func TestTools(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":  func(t *testing.T) string { return filepath.Join(t.TempDir(), "q.db") },
		"redis":   func(t *testing.T) string { return redistest.Start(t) },
		"cluster": func(t *testing.T) string { return redistest.SharedCluster(t) + "?prefix=monitor:" },
	} {
		t.Run(name, func(t *testing.T) { testTools(t, dsn(t)) })
	}
}

func testTools(t *testing.T, dsn string) {
	k := newKnownIn(t, dsn)
	ctx := context.Background()
	store, err := toolstats.Open(ctx, dsn, toolstats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	put := func(at time.Time, snaps ...statspub.Snapshot) {
		t.Helper()
		if err := store.Put(ctx, at, snaps...); err != nil {
			t.Fatal(err)
		}
	}
	exit := 0
	pop := toolSnap("cqueue pop", 15, "shop", t0.Add(-time.Second), 5000, `{"tool":"cqueue","in":0,"out":7}`)
	pop.Exited, pop.Exit = true, &exit
	put(t0.Add(-20*time.Second), toolSnap("cdedupe", 17, "shop", t0.Add(-20*time.Second), 5000, `{"out":1}`)) // expired by t0
	put(t0,
		toolSnap("cfetch", 11, "shop", t0, 5000, `{"tool":"cfetch","in":120,"out":100,"errors":{"timeout":2},"counts":{"status":{"200":95,"404":2,"503":1}}}`),
		toolSnap("cextract", 12, "shop", t0, 5000, `{"tool":"cextract","in":100,"out":300,"counts":{"items":{"emitted":50}}}`),
		toolSnap("cexport", 13, "shop", t0, 5000, `{"tool":"cexport","in":300,"out":40,"dropped":{"invalid":1,"interrupted":3}}`),
		toolSnap("cqueue push", 14, "", t0, 5000, `{"tool":"cqueue","in":200,"out":0,"counts":{"refused":{"duplicate":30}}}`),
		toolSnap("cthrottle", 16, "shop", t0, 1000, `{"tool":"cthrottle","in":5,"out":5}`),
		toolSnap("cfetch", 18, hostileCrawl, t0, 5000, `{"tool":"cfetch","in":1,"out":1,"errors":{"<b>dns</b>":1}}`),
		pop)
	now := t0.Add(time.Second)
	s := newServer(t, k, Options{Tools: store}, &now)
	if err := s.Sample(ctx, now); err != nil {
		t.Fatal(err)
	}
	var first struct {
		ItemsPerS float64 `json:"items_per_s"`
		Tools     []toolJSON
	}
	getJSON(t, s, "/api/v1/tools?crawlid=shop", &first)
	if first.ItemsPerS != 0 || len(first.Tools) != 6 || first.Tools[0].Rates != nil {
		t.Errorf("/tools after one sample: no rates yet, 6 tools (not cdedupe's, expired, nor the other crawl's): %+v", first)
	}

	put(t0.Add(5*time.Second),
		toolSnap("cfetch", 11, "shop", t0.Add(5*time.Second), 5000, `{"tool":"cfetch","in":180,"out":150,"errors":{"timeout":4},"counts":{"status":{"200":140,"404":4,"503":2}}}`),
		toolSnap("cextract", 12, "shop", t0.Add(5*time.Second), 5000, `{"tool":"cextract","in":150,"out":450,"counts":{"items":{"emitted":110}}}`),
		toolSnap("cexport", 13, "shop", t0.Add(5*time.Second), 5000, `{"tool":"cexport","in":450,"out":90,"dropped":{"invalid":1,"interrupted":3}}`))
	now = t0.Add(6 * time.Second)
	if err := s.Sample(ctx, now); err != nil {
		t.Fatal(err)
	}

	var tools struct {
		ItemsPerS  float64          `json:"items_per_s"`
		HTTPErrors float64          `json:"http_errors_per_s"`
		ByReason   map[string]int64 `json:"http_errors"`
		Dropped    []dropJSON       `json:"dropped"`
		Refused    map[string]int64 `json:"refused"`
		Tools      []toolJSON       `json:"tools"`
	}
	getJSON(t, s, "/api/v1/tools?crawlid=shop", &tools)
	// cexport: 50 items in 5 s (cextract's 60 are not counted: an
	// exporter is there); cfetch: 3 more failures (2 timeouts, one 503).
	if tools.ItemsPerS != 10 || tools.HTTPErrors != 0.6 || fmt.Sprint(tools.ByReason) != "map[status_503:2 timeout:4]" ||
		fmt.Sprint(tools.Dropped) != "[{cexport invalid 1}]" || fmt.Sprint(tools.Refused) != "map[duplicate:30]" {
		t.Errorf("/tools?crawlid=shop: %+v", tools)
	}
	got := map[string]toolJSON{}
	for _, tj := range tools.Tools {
		got[tj.Tool] = tj
	}
	if len(tools.Tools) != 6 || len(got) != 6 {
		t.Fatalf("/tools?crawlid=shop: %d tools, want cexport, cextract, cfetch, pop, push, cthrottle: %+v", len(tools.Tools), tools.Tools)
	}
	for tool, want := range map[string]string{
		"cexport":     "shop running 1 450 90 &{10 0}",
		"cextract":    "shop running 1 150 450 &{12 0}",
		"cfetch":      "shop running 1 180 150 &{0 0.6}",
		"cqueue push": " running 6 200 0 <nil>",
		"cthrottle":   "shop late 6 5 5 <nil>",
		"cqueue pop":  "shop exited 7 0 7 <nil>",
	} {
		tj := got[tool]
		if s := fmt.Sprint(tj.CrawlID, " ", tj.State, " ", tj.Age, " ", tj.In, " ", tj.Out, " ", tj.Rates); s != want {
			t.Errorf("/tools: %s: %s, want %s", tool, s, want)
		}
	}
	if p := got["cqueue pop"]; p.Exit == nil || *p.Exit != 0 || p.ID != "cqueue pop worker-1 15 shop" || p.Host != "worker-1" || p.PID != 15 || p.EveryS != 5 {
		t.Errorf("/tools: cqueue pop: %+v", p)
	}
	if f := got["cfetch"]; f.At != "2030-01-02T03:04:10Z" || !strings.Contains(string(f.Stats), `"timeout":4`) {
		t.Errorf("/tools: cfetch: %+v (stats %s)", f, f.Stats)
	}

	var crawls struct {
		Rates  Rates
		Crawls []crawlJSON
	}
	getJSON(t, s, "/api/v1/crawls?crawlid=shop", &crawls)
	if len(crawls.Crawls) != 1 || crawls.Crawls[0].Tools != 6 || crawls.Crawls[0].Rates.Items != 10 || crawls.Crawls[0].Rates.HTTPErrors != 0.6 {
		t.Errorf("/crawls?crawlid=shop: %+v", crawls.Crawls)
	}
	if crawls.Rates.Items != 10 || crawls.Rates.HTTPErrors != 0.6 {
		t.Errorf("/crawls: the frontier's rates %+v", crawls.Rates)
	}
	var series struct{ Points []Point }
	getJSON(t, s, "/api/v1/series?crawlid=shop&last=1", &series)
	if len(series.Points) != 1 || series.Points[0].Items != 10 || series.Points[0].HTTPErrors != 0.6 {
		t.Errorf("/series?crawlid=shop: %+v", series.Points)
	}

	// Every tool, the other crawl's too, its hostile name and error code
	// escaped in the raw answer.
	resp := do(t, s, "GET", "/api/v1/tools", "")
	raw, _ := io.ReadAll(resp.Body)
	var all struct{ Tools []toolJSON }
	if err := json.Unmarshal(raw, &all); err != nil || len(all.Tools) != 7 {
		t.Errorf("/tools: %d tools, want 7 (%v)", len(all.Tools), err)
	}
	if strings.ContainsAny(string(raw), "<>") || !strings.Contains(string(raw), `\u003cimg src=x`) || !strings.Contains(string(raw), `\u003cb\u003edns`) {
		t.Errorf("/tools raw: not escaped: %s", raw)
	}
}
