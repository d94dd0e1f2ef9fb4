package cqueue

import (
	"context"
	"io"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// Seeds pushed with Again after a run of their round that fetched nothing:
// those the round's duplicate filter has as seen are queued again, each
// once however often the seeds list it; a new seed is queued as any; one
// seen in a round begun less than --refresh ago stays fresh.
func TestPushSeedsAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fr, err := frontier.OpenSQLite(ctx, filepath.Join(t.TempDir(), "q.db"), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	now := time.Date(2030, 1, 2, 3, 0, 0, 0, time.UTC)
	push := func(seeds string, round int, refresh time.Duration, again bool) map[string]map[string]int64 {
		t.Helper()
		tool := cli.NewTool("cqueue", io.Discard)
		meta := map[string]string{
			frontier.MetaRoundStarted(1): now.Add(-2 * time.Hour).Format(time.RFC3339),
			frontier.MetaRoundStarted(2): now.Add(-time.Hour).Format(time.RFC3339),
		}
		err := PushSeeds(ctx, tool, fr, ndjson.NewReader(nil, strings.NewReader(seeds)), Seeds{CrawlID: "c", AppID: "a", Round: round,
			Store: Store{Refresh: refresh}, Now: func() time.Time { return now }, Meta: meta, Again: again})
		if err != nil {
			t.Fatal(err)
		}
		// The run fetches what it queued: nothing is left.
		for {
			r, err := fr.Pop(ctx, frontier.PopOptions{Max: 100, Lease: time.Minute}, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Leased) == 0 {
				break
			}
			var leases []string
			for _, l := range r.Leased {
				leases = append(leases, l.Lease)
			}
			if _, err := fr.Ack(ctx, leases, now); err != nil {
				t.Fatal(err)
			}
		}
		return tool.Stats.JSON("cqueue").Counts
	}
	counts := func(queued, again, duplicate, fresh int64) map[string]map[string]int64 {
		m := map[string]map[string]int64{}
		if queued > 0 {
			m["requests"] = map[string]int64{"queued": queued}
		}
		if again > 0 {
			m["requests"]["again"] = again
		}
		refused := map[string]int64{}
		if duplicate > 0 {
			refused[frontier.ReasonDuplicate] = duplicate
		}
		if fresh > 0 {
			refused[frontier.ReasonFresh] = fresh
		}
		if len(refused) > 0 {
			m["refused"] = refused
		}
		return m
	}
	same := func(got, want map[string]map[string]int64) bool {
		return maps.EqualFunc(got, want, func(a, b map[string]int64) bool { return maps.Equal(a, b) })
	}

	// Round 1 fetched a (and x, in round 1 only); round 2 fetched b and
	// failed: nothing fetched.
	push("https://s.example/a\nhttps://s.example/x\n", 1, 0, false)
	push("https://s.example/b\n", 2, 0, false)

	// Without Again, the seeds of round 2 are refused as seen.
	if got, want := push("https://s.example/b\n", 2, 0, false), counts(0, 0, 1, 0); !same(got, want) {
		t.Errorf("round 2's seed pushed again without Again: %v, want %v", got, want)
	}
	// With it, b (listed twice) is queued once; c, new, as any; a,
	// fetched in round 1, begun less than --refresh ago, stays fresh.
	seeds := "https://s.example/b\nhttps://s.example/c\nhttps://s.example/b\nhttps://s.example/a\nhttps://s.example/c\n"
	if got, want := push(seeds, 2, 3*time.Hour, true), counts(2, 1, 2, 1); !same(got, want) {
		t.Errorf("round 2's seeds pushed with Again: %v, want %v", got, want)
	}
}
