package frontier

import (
	"fmt"
	"time"
)

// A crawl run by cqueue crawl runs in rounds (MetaRound); these are the
// other keys of its metadata that cqueue push and cqueue info read too.
const (
	// MetaRoundState is the current round's state: running or complete.
	MetaRoundState = "round_state"
)

// MetaRoundStarted is the metadata key of when round r began (RFC 3339).
func MetaRoundStarted(r int) string { return fmt.Sprintf("round_%d_started_at", r) }

// FreshRounds lists the rounds before round whose start is less than
// refresh before now: a URL seen in one of them is not fetched again
// (cqueue push --refresh).
func FreshRounds(meta map[string]string, round int, refresh time.Duration, now time.Time) []int {
	if refresh <= 0 {
		return nil
	}
	var out []int
	for r := round - 1; r >= 1; r-- {
		t, err := time.Parse(time.RFC3339, meta[MetaRoundStarted(r)])
		if err != nil {
			continue
		}
		if now.Sub(t) < refresh {
			out = append(out, r)
		}
	}
	return out
}
