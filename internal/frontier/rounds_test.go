package frontier

import (
	"slices"
	"testing"
	"time"
)

// TestFreshRounds: the rounds before round N begun less than refresh
// before now, newest first; none without a refresh or before round 2.
func TestFreshRounds(t *testing.T) {
	now := time.Date(2026, 3, 10, 2, 30, 0, 0, time.UTC)
	meta := map[string]string{
		MetaRoundStarted(1): "2026-03-08T02:30:00Z", // 48h ago
		MetaRoundStarted(2): "2026-03-09T02:30:00Z", // 24h ago
		MetaRoundStarted(3): "2026-03-10T01:30:00Z", // 1h ago
		MetaRoundStarted(4): "not a time",
	}
	for _, c := range []struct {
		round   int
		refresh time.Duration
		want    []int
	}{
		{4, 0, nil},
		{1, 100 * time.Hour, nil},
		{4, 20 * time.Hour, []int{3}},
		{4, 24 * time.Hour, []int{3}}, // 24h ago is not less than 24h
		{4, 25 * time.Hour, []int{3, 2}},
		{4, 72 * time.Hour, []int{3, 2, 1}},
		{3, 72 * time.Hour, []int{2, 1}},
		{5, 72 * time.Hour, []int{3, 2, 1}}, // round 4's start unreadable: left out
	} {
		if got := FreshRounds(meta, c.round, c.refresh, now); !slices.Equal(got, c.want) {
			t.Errorf("FreshRounds(round %d, refresh %s) = %v, want %v", c.round, c.refresh, got, c.want)
		}
	}
}
