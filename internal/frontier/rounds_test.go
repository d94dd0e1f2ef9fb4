package frontier

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// roundReq is a request of crawl "shop" in round r, fresh if seen in the
// rounds listed.
func roundReq(t *testing.T, url string, r int, fresh ...int) Entry {
	t.Helper()
	q := record.Request{Kind: record.KindRequest, URL: url, CrawlID: "shop"}
	if r > 0 {
		q.Extra = map[string]json.RawMessage{"round": json.RawMessage(itoa(r))}
	}
	e, err := NewEntry(q, KeyFast)
	if err != nil {
		t.Fatal(err)
	}
	if e.Round != r {
		t.Fatalf("NewEntry: Round %d, want %d", e.Round, r)
	}
	e.Fresh = fresh
	return e
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRounds: each round of a crawl has its own seen set, so a URL is
// queued once per round; a URL seen in a round listed as fresh is
// refused "fresh" and not marked seen in its round; a duplicate within a
// round is a duplicate, fresh or not; round 0 and round 1 are the same.
func TestRounds(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		reasons := func(res []PushResult) []string {
			var out []string
			for _, r := range res {
				out = append(out, r.Reason)
			}
			return out
		}
		check := func(what string, got []PushResult, want ...string) {
			t.Helper()
			g := reasons(got)
			if len(g) != len(want) {
				t.Fatalf("%s: reasons %q, want %q", what, g, want)
			}
			for i := range g {
				if g[i] != want[i] {
					t.Fatalf("%s: reasons %q, want %q", what, g, want)
				}
			}
		}
		a, b, c := "http://a.test/", "http://a.test/b", "http://a.test/c"
		check("round 1", push(t, f, t0, roundReq(t, a, 0), roundReq(t, b, 1), roundReq(t, a, 1)), "", "", "duplicate")
		check("round 2", push(t, f, t0, roundReq(t, a, 2), roundReq(t, a, 2), roundReq(t, c, 2)), "", "duplicate", "")
		// Round 3, with rounds 2 fresh: a and c were seen in round 2; b only in round 1.
		check("round 3", push(t, f, t0, roundReq(t, a, 3, 2), roundReq(t, b, 3, 2), roundReq(t, c, 3, 2)), "fresh", "", "fresh")
		// A fresh URL was not marked seen in round 3: without the fresh
		// rounds it is queued; b is a duplicate of round 3 now.
		check("round 3 again", push(t, f, t0, roundReq(t, a, 3), roundReq(t, b, 3, 2)), "", "duplicate")
		// Round 1 listed fresh for round 4 (round 0 is round 1).
		check("round 4", push(t, f, t0, roundReq(t, b, 4, 1), roundReq(t, c, 4, 0)), "fresh", "")
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st[StatRefused+ReasonFresh] != 3 {
			t.Errorf("stats %s = %d, want 3", StatRefused+ReasonFresh, st[StatRefused+ReasonFresh])
		}
	})
}

// TestLockCrawl: a crawl's run lock is held by one holder at a time,
// renewed by it, taken over after it expires or from a holder named dead,
// released by its holder only; each crawl has its own.
func TestLockCrawl(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		lock := func(crawl, holder, steal string, now time.Time, wantOK bool, wantCur string) {
			t.Helper()
			cur, ok, err := f.LockCrawl(ctx, crawl, holder, steal, 30*time.Second, now)
			if err != nil {
				t.Fatal(err)
			}
			if ok != wantOK || cur != wantCur {
				t.Fatalf("LockCrawl(%s, %s, steal %q) = %q, %v; want %q, %v", crawl, holder, steal, cur, ok, wantCur, wantOK)
			}
		}
		lock("shop", "A", "", t0, true, "A")
		lock("shop", "B", "", t0.Add(time.Second), false, "A")
		lock("other", "B", "", t0, true, "B")
		lock("shop", "A", "", t0.Add(20*time.Second), true, "A") // renewed until t0+50s
		lock("shop", "B", "", t0.Add(45*time.Second), false, "A")
		lock("shop", "B", "C", t0.Add(45*time.Second), false, "A") // C is not the holder
		lock("shop", "B", "", t0.Add(50*time.Second), true, "B")   // expired
		lock("shop", "C", "B", t0.Add(51*time.Second), true, "C")  // B named dead
		if err := f.UnlockCrawl(ctx, "shop", "B"); err != nil {    // not B's
			t.Fatal(err)
		}
		lock("shop", "D", "", t0.Add(52*time.Second), false, "C")
		if err := f.UnlockCrawl(ctx, "shop", "C"); err != nil {
			t.Fatal(err)
		}
		lock("shop", "D", "", t0.Add(52*time.Second), true, "D")
	})
}
