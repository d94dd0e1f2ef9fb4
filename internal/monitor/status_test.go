package monitor

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/statspub"
)

func TestStatusOf(t *testing.T) {
	active := frontier.CrawlInfo{State: frontier.StateActive}
	work := frontier.CrawlInfo{State: frontier.StateActive, Pending: 3}
	for _, tt := range []struct {
		name    string
		c       frontier.CrawlInfo
		meta    map[string]string
		working bool
		want    string
	}{
		{"finished long ago", active, nil, false, "complete"},
		{"finished, its tools' last stats still shown", active, nil, true, "complete"},
		{"crawling", work, nil, true, "running"},
		{"leases out", frontier.CrawlInfo{State: frontier.StateActive, InFlight: 2}, nil, false, "running"},
		{"nobody on it", work, nil, false, "idle"},
		{"paused", work, map[string]string{frontier.MetaPaused: "1"}, true, "paused"},
		{"resumed", work, map[string]string{frontier.MetaPaused: "0"}, true, "running"},
		{"stopped, purged", frontier.CrawlInfo{State: frontier.StateStopped}, nil, false, "stopped"},
		{"stopped, queue kept", work, map[string]string{frontier.MetaStopped: "2030-01-02T03:04:05Z", frontier.MetaPaused: "1"}, false, "stopped"},
		{"expired", frontier.CrawlInfo{State: frontier.StateExpired}, nil, false, "expired"},
	} {
		if got := statusOf(tt.c, tt.meta, tt.working); got != tt.want {
			t.Errorf("%s: status %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTotalsOf(t *testing.T) {
	snap := func(crawl, tool string, exited bool, stats string) statspub.Snapshot {
		return statspub.Snapshot{CrawlID: crawl, Tool: tool, Exited: exited, Stats: json.RawMessage(stats)}
	}
	snaps := []statspub.Snapshot{
		snap("shop", "cfetch", false, `{"out":120,"errors":{"dns":2},"counts":{"status":{"200":100,"503":3},"interrupted":{"released":5},"passed":{"pause":1,"expired":1}}}`),
		snap("shop", "cfetch", true, `{"out":30}`), // another machine's
		snap("shop", "cextract", false, `{"counts":{"items":{"emitted":90}}}`),
		snap("shop", "cexport", false, `{"out":88}`),
		snap("other", "cfetch", false, `{"out":7}`),
	}
	got, ok, working := totalsOf(snaps, "shop")
	// Pages: cfetch's out, less the requests handed back and the records
	// passed through (counted as pages by cqueue serve, not by cqueue
	// crawl's account).
	if want := (totalsJSON{Pages: 143, Items: 88, Errors: 5}); got != want || !ok || !working {
		t.Errorf("totalsOf(shop) = %+v, %v, %v; want %+v", got, ok, working, want)
	}
	if got, _, _ := totalsOf(snaps[:3], "shop"); got.Items != 90 {
		t.Errorf("without cexport, items = %d, want cextract's 90", got.Items)
	}
	if _, ok, _ := totalsOf(snaps, "none"); ok {
		t.Errorf("totalsOf(a crawl with no tools) is ok")
	}
}

func TestElapsedOf(t *testing.T) {
	now := time.Date(2030, 1, 2, 4, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		meta map[string]string
		want float64
		ok   bool
	}{
		{"not run by cqueue crawl", nil, 0, false},
		{"running", map[string]string{"round": "2", "round_state": "running", "round_2_started_at": "2030-01-02T03:00:00Z", "round_1_finished_at": "2030-01-01T03:00:00Z"}, 3600, true},
		{"complete", map[string]string{"round": "1", "round_state": "complete", "round_1_started_at": "2030-01-02T03:00:00Z", "round_1_finished_at": "2030-01-02T03:10:00Z"}, 600, true},
		{"stopped", map[string]string{"round": "1", "round_state": "stopped", "round_1_started_at": "2030-01-02T03:00:00Z", frontier.MetaStopped: "2030-01-02T03:01:00Z"}, 60, true},
	} {
		_, _, got, ok := elapsedOf(tt.meta, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: elapsed %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// A crawl cqueue crawl finished is shown complete, with its round's
// elapsed time and its last run's totals, not "active"; one it stopped
// keeping its queue is shown stopped.
func TestCrawlsStatusOfFinishedCrawls(t *testing.T) {
	k := newKnown(t)
	ctx := context.Background()
	// "other" finished: its one request fetched, its round complete.
	r, err := k.fr.Pop(ctx, frontier.PopOptions{Max: 10, Lease: time.Minute}, t0)
	if err != nil {
		t.Fatal(err)
	}
	var leases []string
	for _, l := range r.Leased {
		if l.CrawlID == "other" {
			leases = append(leases, l.Lease)
		}
	}
	if _, err := k.fr.Ack(ctx, leases, t0); err != nil || len(leases) != 1 {
		t.Fatalf("ack %v: %v", leases, err)
	}
	if _, err := k.fr.SetCrawlMeta(ctx, "other", map[string]string{"round": "1", "round_state": "complete",
		"round_1_started_at": "2030-01-02T03:00:00Z", "round_1_finished_at": "2030-01-02T03:02:30Z",
		MetaLastRun: `{"pages":1,"items":1,"errors":0,"state":"complete","exit":0}`}, true); err != nil {
		t.Fatal(err)
	}
	if _, kept, err := frontier.StopCrawl(ctx, k.fr, "shop", t0); err != nil || kept {
		t.Fatalf("StopCrawl(shop, not run by cqueue crawl) = kept %v, %v", kept, err)
	}
	now := t0.Add(time.Hour)
	s := newServer(t, k, Options{}, &now)
	if err := s.Sample(ctx, now); err != nil {
		t.Fatal(err)
	}
	var crawls struct{ Crawls []crawlJSON }
	getJSON(t, s, "/api/v1/crawls", &crawls)
	got := map[string]crawlJSON{}
	for _, c := range crawls.Crawls {
		got[c.CrawlID] = c
	}
	other := got["other"]
	if other.State != "active" || other.Status != "complete" || other.Round != 1 || other.ElapsedS == nil || *other.ElapsedS != 150 ||
		other.Totals == nil || *other.Totals != (totalsJSON{Pages: 1, Items: 1}) {
		t.Errorf("the finished crawl: %+v (elapsed %v, totals %v)", other, other.ElapsedS, other.Totals)
	}
	if shop := got["shop"]; shop.Status != "stopped" {
		t.Errorf("the stopped crawl: status %q", shop.Status)
	}
}
