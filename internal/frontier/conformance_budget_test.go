package frontier

import (
	"strconv"
	"sync"
	"testing"
	"time"
)

// The conformance suite (see conformance_test.go): the counts of a
// crawl's budget, kept in its metadata.

// TestAddCrawlCounts: counts add up from zero, whoever adds them and
// however many at once (loops sharing a crawl); set keys are set with
// them; other keys and other crawls are left alone; the budget read back
// is reached as the counts say.
func TestAddCrawlCounts(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		if _, err := f.SetCrawlMeta(ctx, "shop", map[string]string{"round": "1", MetaMaxPages: "90", MetaMaxItems: "1000"}, false); err != nil {
			t.Fatal(err)
		}
		m, err := f.AddCrawlCounts(ctx, "shop", map[string]int64{MetaPages: 2, MetaItems: 5}, map[string]string{MetaIdleSince: BudgetTime(t0)})
		if err != nil {
			t.Fatal(err)
		}
		if m[MetaPages] != "2" || m[MetaItems] != "5" || m[MetaIdleSince] != BudgetTime(t0) || m["round"] != "1" {
			t.Fatalf("after one add: %v", m)
		}
		const procs, adds = 6, 15
		var wg sync.WaitGroup
		for range procs {
			wg.Go(func() {
				for range adds {
					if _, err := f.AddCrawlCounts(ctx, "shop", map[string]int64{MetaPages: 1, MetaErrors: 1}, nil); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		m, err = f.CrawlMeta(ctx, "shop")
		if err != nil {
			t.Fatal(err)
		}
		want := CrawlCounts{Pages: 2 + procs*adds, Items: 5, Errors: procs * adds}
		if got := CountsOf(m); got != want {
			t.Fatalf("counts %+v, want %+v (meta %v)", got, want, m)
		}
		if got := BudgetReached(m, t0); got != "max_pages reached (90)" {
			t.Errorf("BudgetReached = %q", got)
		}
		// Counting may go back (a new round starts them over).
		m, err = f.AddCrawlCounts(ctx, "shop", map[string]int64{MetaPages: -CountsOf(m).Pages}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m[MetaPages] != "0" || BudgetReached(m, t0) != "" {
			t.Errorf("after going back to 0: %v", m)
		}
		if m, _ := f.CrawlMeta(ctx, "other"); len(m) != 0 {
			t.Errorf("CrawlMeta(other) = %v", m)
		}
	})
}

// TestBudgetAcrossLoops: loops sharing a crawl each hand out no more than
// PagesLeft and count the pages they finish; together they fetch no more
// than the budget plus what they popped at the same moment.
func TestBudgetAcrossLoops(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		const budget, loops, batch = 25, 3, 4
		var es []Entry
		for i := range 100 {
			es = append(es, req(t, "http://a"+strconv.Itoa(i%5)+".test/"+strconv.Itoa(i), "crawl", "shop"))
		}
		push(t, f, t0, es...)
		if _, err := f.SetCrawlMeta(ctx, "shop", Budget{MaxPages: budget}.Meta(), true); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		fetched := 0
		var wg sync.WaitGroup
		for range loops {
			wg.Go(func() {
				for {
					m, err := f.CrawlMeta(ctx, "shop")
					if err != nil {
						t.Error(err)
						return
					}
					if BudgetReached(m, t0) != "" {
						return
					}
					c, err := f.Counts(ctx)
					if err != nil {
						t.Error(err)
						return
					}
					n := min(batch, int(PagesLeft(m, c.InFlight)))
					if n == 0 {
						time.Sleep(time.Millisecond)
						continue
					}
					res, err := f.Pop(ctx, PopOptions{Max: n, Lease: time.Minute}, t0)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					fetched += len(res.Leased)
					mu.Unlock()
					if _, err := f.Ack(ctx, leases(res.Leased), t0); err != nil {
						t.Error(err)
						return
					}
					if _, err := f.AddCrawlCounts(ctx, "shop", map[string]int64{MetaPages: int64(len(res.Leased))}, nil); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if fetched < budget || fetched > budget+(loops-1)*batch {
			t.Errorf("%d pages fetched with a budget of %d, %d loops popping %d at most", fetched, budget, loops, batch)
		}
		m, _ := f.CrawlMeta(ctx, "shop")
		if CountsOf(m).Pages != int64(fetched) {
			t.Errorf("counted %s pages, fetched %d", m[MetaPages], fetched)
		}
	})
}
