package monitor

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// TestResources: each read resource's JSON over a frontier holding a
// known crawl, sampled twice a second apart with one ack in between.
func TestResources(t *testing.T) {
	k := newKnown(t)
	now := t0.Add(time.Second)
	s := newServer(t, k, Options{}, &now)
	ctx := context.Background()
	if err := s.Sample(ctx, now); err != nil {
		t.Fatal(err)
	}
	if _, err := k.fr.Ack(ctx, []string{k.lease}, t0.Add(1500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(2 * time.Second)
	if err := s.Sample(ctx, now); err != nil {
		t.Fatal(err)
	}

	var index struct {
		Version  int    `json:"version"`
		Store    string `json:"store"`
		Interval int64  `json:"sample_interval_ms"`
		Control  bool   `json:"control"`
	}
	getJSON(t, s, "/api/v1/", &index)
	if index.Version != 1 || index.Store != "sqlite" || index.Interval != 1000 || index.Control {
		t.Errorf("/api/v1/ = %+v", index)
	}

	var crawls struct {
		AsOf   string `json:"as_of"`
		Counts struct{ Queued, InFlight, Dead int64 }
		Rates  Rates `json:"rates"`
		Crawls []crawlJSON
	}
	getJSON(t, s, "/api/v1/crawls", &crawls)
	if crawls.AsOf != "2030-01-02T03:04:07Z" || crawls.Counts.Queued != 6 || crawls.Counts.Dead != 1 || crawls.Rates.Pages != 1 {
		t.Errorf("/crawls: %+v", crawls)
	}
	if len(crawls.Crawls) != 2 {
		t.Fatalf("/crawls: %d crawls, want 2: %+v", len(crawls.Crawls), crawls.Crawls)
	}
	shop := crawls.Crawls[1]
	if shop.CrawlID != "shop" || shop.AppID != "app" || shop.State != "active" || shop.Paused ||
		shop.Queued != 5 || shop.InFlight != 0 || shop.Dead != 1 || shop.Hosts != 3 || !shop.Tracked ||
		shop.Rates != (Rates{Pages: 1}) {
		t.Errorf("/crawls: shop = %+v", shop)
	}
	if shop.Status != "idle" || shop.Totals != nil || shop.ElapsedS != nil {
		t.Errorf("/crawls: shop (work left, nothing on it) = status %q, totals %v, elapsed %v", shop.Status, shop.Totals, shop.ElapsedS)
	}
	if other := crawls.Crawls[0]; other.CrawlID != "other" || other.Queued != 1 || other.Rates.Pages != 0 {
		t.Errorf("/crawls: other = %+v", other)
	}
	var one struct{ Crawls []crawlJSON }
	getJSON(t, s, "/api/v1/crawls?crawlid=other", &one)
	if len(one.Crawls) != 1 || one.Crawls[0].CrawlID != "other" {
		t.Errorf("/crawls?crawlid=other: %+v", one)
	}

	var hosts struct {
		Sort  string
		Total int
		Hosts []hostJSON
	}
	getJSON(t, s, "/api/v1/hosts?crawlid=shop", &hosts) // most failing first
	// total counts the hosts the sort considers: those with dead letters
	// (it counted every host of the crawl).
	if hosts.Sort != "dead" || hosts.Total != 1 || len(hosts.Hosts) != 1 || hosts.Hosts[0].Host != "evil.test" || hosts.Hosts[0].Dead != 1 {
		t.Errorf("/hosts (most failing): %+v", hosts)
	}
	getJSON(t, s, "/api/v1/hosts?crawlid=shop&sort=stalled", &hosts)
	if len(hosts.Hosts) != 2 || hosts.Hosts[0].Host != "b.test" || *hosts.Hosts[0].Idle != 1 || hosts.Hosts[1].Host != "a.test" || *hosts.Hosts[1].Idle != 0 {
		t.Errorf("/hosts (slowest: b.test unchanged for 1s, a.test changed now): %+v", hosts)
	}

	var series struct {
		Scope  string
		Res    string
		StepMS int64 `json:"step_ms"`
		Points []Point
	}
	getJSON(t, s, "/api/v1/series", &series)
	want := []Point{
		{T: t0.Add(time.Second).UnixMilli(), Queued: 6, InFlight: 1, Dead: 1},
		{T: t0.Add(2 * time.Second).UnixMilli(), Queued: 6, InFlight: 0, Dead: 1, Pages: 1},
	}
	if series.Scope != "frontier" || series.StepMS != 1000 || len(series.Points) != 2 || series.Points[0] != want[0] || series.Points[1] != want[1] {
		t.Errorf("/series = %+v, want points %+v", series, want)
	}
	getJSON(t, s, "/api/v1/series?crawlid=shop&last=1", &series)
	if series.Scope != "crawl" || len(series.Points) != 1 || series.Points[0] != (Point{T: want[1].T, Queued: 5, Dead: 1, Pages: 1}) {
		t.Errorf("/series?crawlid=shop&last=1 = %+v", series)
	}

	var dead struct {
		Total    int64
		ByReason map[string]int64 `json:"by_reason"`
		Letters  []deadJSON
	}
	getJSON(t, s, "/api/v1/dead?crawlid=shop", &dead)
	if dead.Total != 1 || dead.ByReason["invalid_record"] != 1 || len(dead.Letters) != 1 ||
		dead.Letters[0].URL != hostileURL || dead.Letters[0].Reason != "invalid_record" || dead.Letters[0].Host != "evil.test" {
		t.Errorf("/dead = %+v", dead)
	}
	// The raw answer carries the hostile URL with <, > and & escaped.
	resp := do(t, s, "GET", "/api/v1/dead", "")
	raw, _ := io.ReadAll(resp.Body)
	if strings.ContainsAny(string(raw), "<>") || !strings.Contains(string(raw), `\u003cscript\u003e`) {
		t.Errorf("/dead raw: %s", raw)
	}

	var consumers struct {
		TimeoutS  float64 `json:"consumer_timeout_s"`
		Consumers []consumerJSON
	}
	getJSON(t, s, "/api/v1/consumers", &consumers)
	if consumers.TimeoutS != 30 || len(consumers.Consumers) != 1 {
		t.Fatalf("/consumers = %+v", consumers)
	}
	if c := consumers.Consumers[0]; c.ID != k.consumer.ID || c.Host != "worker-1" || c.PID != 4242 || c.Held != 0 ||
		c.Beat != "2030-01-02T03:04:05Z" || c.BeatAge != 2 || !c.Alive {
		t.Errorf("/consumers: %+v", c)
	}

	var stats struct {
		Queued   int64
		Counters map[string]int64
	}
	getJSON(t, s, "/api/v1/stats", &stats)
	if stats.Queued != 6 || stats.Counters["acked"] != 1 || stats.Counters["failed"] != 1 || stats.Counters["pushed"] != 8 {
		t.Errorf("/stats = %+v", stats)
	}
}

// TestResourceErrors: bad parameters and unknown things answer JSON
// errors with the right status.
func TestResourceErrors(t *testing.T) {
	k := newKnown(t)
	now := t0
	s := newServer(t, k, Options{}, &now)
	if resp := do(t, s, "GET", "/api/v1/crawls", ""); resp.StatusCode != 503 {
		t.Errorf("before the first sample: %d, want 503", resp.StatusCode)
	}
	if err := s.Sample(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	for target, status := range map[string]int{
		"/api/v1/hosts":                       400,
		"/api/v1/hosts?crawlid=nope":          404,
		"/api/v1/hosts?crawlid=shop&sort=zzz": 400,
		"/api/v1/hosts?crawlid=shop&limit=0":  400,
		"/api/v1/series?crawlid=nope":         404,
		"/api/v1/series?res=hourly":           400,
		"/api/v1/nothing":                     404,
		"/api/v2/crawls":                      404,
	} {
		resp := do(t, s, "GET", target, "")
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != status || !strings.Contains(string(body), `"error":{"code":`) {
			t.Errorf("GET %s: %d %s, want %d and a JSON error", target, resp.StatusCode, body, status)
		}
	}
}

// TestDeadLettersCached: the dead letters are read again only once the
// dead count has changed and DeadEvery has passed (each read walks the
// whole frontier).
func TestDeadLettersCached(t *testing.T) {
	k := newKnown(t)
	now := t0
	s := newServer(t, k, Options{DeadEvery: 10 * time.Second}, &now)
	ctx := context.Background()
	total := func() int64 {
		t.Helper()
		if err := s.Sample(ctx, now); err != nil {
			t.Fatal(err)
		}
		var dead struct{ Total int64 }
		getJSON(t, s, "/api/v1/dead", &dead)
		return dead.Total
	}
	if n := total(); n != 1 {
		t.Fatalf("dead: %d, want 1", n)
	}
	// The request in flight fails: one more dead letter.
	if _, err := k.fr.Apply(ctx, frontier.Batch{Fails: []frontier.Fail{{Lease: k.lease, Reason: "too_large"}}}, t0); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(5 * time.Second)
	if n := total(); n != 1 {
		t.Errorf("5s later: %d dead letters, want the 1 read before (not read again yet)", n)
	}
	now = t0.Add(11 * time.Second)
	if n := total(); n != 2 {
		t.Errorf("11s later: %d dead letters, want 2", n)
	}
}
