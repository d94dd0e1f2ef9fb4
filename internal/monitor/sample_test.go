package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// TestRing: a full ring drops its oldest point; last returns the newest,
// oldest first.
func TestRing(t *testing.T) {
	r := newRing(3)
	if got := r.last(0); len(got) != 0 {
		t.Fatalf("empty ring: %v", got)
	}
	for i := range 5 {
		r.add(Point{T: int64(i)})
	}
	got := r.last(0)
	if len(got) != 3 || got[0].T != 2 || got[2].T != 4 {
		t.Errorf("last(0) = %v, want T 2, 3, 4", got)
	}
	if got := r.last(2); len(got) != 2 || got[0].T != 3 {
		t.Errorf("last(2) = %v, want T 3, 4", got)
	}
}

// TestSeriesDownsamples: past the fine history, one point per step
// remains: the levels at its end, the rates averaged over it.
func TestSeriesDownsamples(t *testing.T) {
	s := newSeries(60, 3, time.Minute)
	start := t0.Truncate(time.Minute)
	for i := range 4 * 60 { // four minutes, one sample a second
		s.add(Point{T: start.Add(time.Duration(i) * time.Second).UnixMilli(), Queued: int64(i), Pages: float64(i / 60)})
	}
	if fine := s.points(false, 0); len(fine) != 60 || fine[0].Queued != 180 {
		t.Errorf("fine: %d points from queued %d, want the last 60 from 180", len(fine), fine[0].Queued)
	}
	coarse := s.points(true, 0)
	if len(coarse) != 3 {
		t.Fatalf("coarse: %d points, want 3 (the fourth minute is still open)", len(coarse))
	}
	for i, p := range coarse {
		if p.T != start.Add(time.Duration(i)*time.Minute).UnixMilli() || p.Queued != int64(i*60+59) || p.Pages != float64(i) {
			t.Errorf("coarse[%d] = %+v, want minute %d: queued %d, pages %d", i, p, i, i*60+59, i)
		}
	}
}

// TestShares: the frontier's page rate goes to the crawls in proportion
// to what they had in flight; failing that, to the one with work.
func TestShares(t *testing.T) {
	ci := func(id string, pending, inFlight int64) frontier.CrawlInfo {
		return frontier.CrawlInfo{CrawlID: id, Pending: pending, InFlight: inFlight}
	}
	prev := map[string]frontier.CrawlInfo{"a": ci("a", 10, 3), "b": ci("b", 10, 1)}
	got := shares(prev, []frontier.CrawlInfo{ci("a", 8, 3), ci("b", 10, 1)})
	if got["a"] != 0.75 || got["b"] != 0.25 {
		t.Errorf("by in flight: %v", got)
	}
	prev = map[string]frontier.CrawlInfo{"a": ci("a", 10, 0), "b": ci("b", 10, 0)}
	got = shares(prev, []frontier.CrawlInfo{ci("a", 7, 0), ci("b", 10, 0)})
	if got["a"] != 1 || got["b"] != 0 {
		t.Errorf("by movement: %v", got)
	}
	got = shares(nil, []frontier.CrawlInfo{ci("a", 5, 0), ci("b", 0, 0)})
	if got["a"] != 1 || len(got) != 1 {
		t.Errorf("one with work: %v", got)
	}
	if got = shares(nil, []frontier.CrawlInfo{ci("a", 5, 0), ci("b", 5, 0)}); got != nil {
		t.Errorf("nothing to go by: %v, want none", got)
	}
}

// TestSampleFailureKeepsLastSnapshot: a failed sample leaves the last good
// one in place, with the error shown.
func TestSampleFailureKeepsLastSnapshot(t *testing.T) {
	k := newKnown(t)
	now := t0
	s := newServer(t, k, Options{}, &now)
	if err := s.Sample(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	k.fr.Close()
	if err := s.Sample(context.Background(), now.Add(time.Second)); err == nil {
		t.Fatal("a sample of a closed frontier worked")
	}
	var crawls struct {
		AsOf  string `json:"as_of"`
		Error string
	}
	getJSON(t, s, "/api/v1/crawls", &crawls)
	if crawls.AsOf != "2030-01-02T03:04:05Z" || crawls.Error == "" {
		t.Errorf("after a failed sample: %+v", crawls)
	}
}
