package crawl

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// The follow-ups cextract keeps out by the crawl policy (max_depth, …) are
// follow-ups dropped, as push's refusals are: not records rejected, which
// would make a complete crawl exit 3. The names cextract used before the
// vocabulary was one (maxdepth, allowed_domains, …) count the same. A bad
// record is still a rejection.
func TestAccountPolicyDropsAreNotRejections(t *testing.T) {
	c := &crawl{o: crawlOptions{crawlID: "items", out: "items.csv"}, start: time.Now()}
	a := c.account(loopStats{
		"cextract": &cli.StatsJSON{Dropped: map[string]int64{
			"max_depth": 9, "maxdepth": 1, "offsite": 1, "allowed_domains": 1, "not_allowed": 3, "deny_regex": 4, "extension": 5, "invalid": 1,
		}},
		"push": &cli.StatsJSON{Counts: map[string]map[string]int64{"refused": {"duplicate": 7, "max_depth": 1}}},
	})
	want := map[string]int64{"duplicate": 7, "max_depth": 11, "offsite": 2, "not_allowed": 3, "denied": 4, "extension": 5}
	if !maps.Equal(a.FollowUps.Dropped, want) {
		t.Errorf("follow-ups dropped %v, want %v", a.FollowUps.Dropped, want)
	}
	if wantRej := []rejection{{Tool: "cextract", Reason: "invalid", Count: 1}}; !slices.Equal(a.Rejected, wantRej) {
		t.Errorf("rejected %v, want %v", a.Rejected, wantRej)
	}
}

// Pages are cfetch's responses: not the records it passed through (the
// pause record cqueue pop writes when the crawl is stopped or paused), nor
// the requests it released unfetched at an interrupt.
func TestAccountPagesAreResponses(t *testing.T) {
	c := &crawl{o: crawlOptions{crawlID: "items", out: "items.csv"}, start: time.Now()}
	a := c.account(loopStats{
		"cfetch": &cli.StatsJSON{Out: 7, Counts: map[string]map[string]int64{
			"status":      {"200": 4},
			"passed":      {"pause": 1, "expired": 1},
			"interrupted": {"released": 1},
		}},
	})
	if a.Pages.Total != 4 {
		t.Errorf("%d pages, want 4", a.Pages.Total)
	}
}
