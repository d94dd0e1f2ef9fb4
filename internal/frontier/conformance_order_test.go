package frontier

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The conformance suite (see conformance_test.go): the order of pops
// (priority, FIFO and LIFO, depth priority, the turns of hosts) and the
// duplicate filter.

func TestPriorityThenFIFO(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0,
			req(t, "http://a.test/1", "prio", 1),
			req(t, "http://a.test/2", "prio", 5),
			req(t, "http://a.test/3", "prio", 3),
			req(t, "http://a.test/4", "prio", 5),
			req(t, "http://a.test/5", "prio", -2),
			req(t, "http://a.test/6", "prio", 1))
		got := urls(t, pop(t, f, 10, t0))
		want := []string{"http://a.test/2", "http://a.test/4", "http://a.test/3", "http://a.test/1", "http://a.test/6", "http://a.test/5"}
		if !slices.Equal(got, want) {
			t.Errorf("pop order\n got %v\nwant %v", got, want)
		}
	})
}

func TestLIFO(t *testing.T) {
	each(t, Options{Order: LIFO}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"), req(t, "http://a.test/3", "prio", 1))
		push(t, f, t0, req(t, "http://a.test/4"))
		got := urls(t, pop(t, f, 10, t0))
		want := []string{"http://a.test/3", "http://a.test/4", "http://a.test/2", "http://a.test/1"}
		if !slices.Equal(got, want) {
			t.Errorf("pop order\n got %v\nwant %v", got, want)
		}
	})
}

// TestDepthPriority: Scrapy's DEPTH_PRIORITY = 1 gives breadth-first order.
func TestDepthPriority(t *testing.T) {
	each(t, Options{DepthPriority: 1}, func(t *testing.T, f Frontier) {
		push(t, f, t0,
			req(t, "http://a.test/deep", "depth", 2),
			req(t, "http://a.test/mid", "depth", 1),
			req(t, "http://a.test/seed"))
		ls := pop(t, f, 10, t0)
		if got, want := urls(t, ls), []string{"http://a.test/seed", "http://a.test/mid", "http://a.test/deep"}; !slices.Equal(got, want) {
			t.Errorf("pop order\n got %v\nwant %v", got, want)
		}
		if ls[2].Priority != -2 {
			t.Errorf("depth-2 request queued at priority %d, want -2", ls[2].Priority)
		}
	})
}

// TestFairAcrossHosts: a host with many queued requests takes turns with
// hosts that have few; a host arriving later joins the rotation.
func TestFairAcrossHosts(t *testing.T) {
	eachOrdered(t, Options{}, func(t *testing.T, f Frontier) {
		var big []Entry
		for i := range 1000 {
			big = append(big, req(t, fmt.Sprintf("http://big.test/%d", i)))
		}
		push(t, f, t0, big...)
		push(t, f, t0, req(t, "http://small.test/1"), req(t, "http://small.test/2"))
		first := pop(t, f, 4, t0)
		hosts := func(ls []Leased) (out []string) {
			for _, l := range ls {
				out = append(out, l.Host)
			}
			return out
		}
		if got, want := hosts(first), []string{"big.test", "small.test", "big.test", "small.test"}; !slices.Equal(got, want) {
			t.Errorf("first pops from %v, want %v", got, want)
		}
		// A newcomer waits at most one rotation, even behind 996 requests.
		push(t, f, t0, req(t, "http://late.test/1"))
		if got := hosts(pop(t, f, 2, t0)); !slices.Contains(got, "late.test") {
			t.Errorf("late host not served within 2 pops: %v", got)
		}
		// Priority wins over fairness.
		push(t, f, t0, req(t, "http://urgent.test/1", "prio", 9))
		if got := hosts(pop(t, f, 1, t0)); got[0] != "urgent.test" {
			t.Errorf("high-priority host not served first: %v", got)
		}
	})
}

// TestFairnessOnePopAtATime: the rotation holds across Pop calls, not just
// within one batch.
func TestFairnessOnePopAtATime(t *testing.T) {
	eachOrdered(t, Options{}, func(t *testing.T, f Frontier) {
		for _, h := range []string{"a", "b", "c"} {
			for i := range 3 {
				push(t, f, t0, req(t, fmt.Sprintf("http://%s.test/%d", h, i)))
			}
		}
		var got []string
		for range 9 {
			ls := pop(t, f, 1, t0)
			got = append(got, ls[0].Host[:1])
		}
		if want := strings.Split("abcabcabc", ""); !slices.Equal(got, want) {
			t.Errorf("hosts served %v, want %v", got, want)
		}
	})
}

func TestDedupe(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		res := push(t, f, t0,
			req(t, "http://a.test/p?b=2&a=1", "crawl", "c1"),
			req(t, "http://a.test/p?a=1&b=2#frag", "crawl", "c1"), // same canonical URL
			req(t, "http://a.test/p?a=1&b=2", "crawl", "c2"),      // other crawl
			req(t, "http://a.test/p?a=1&b=2", "crawl", "c1", "dont_filter", true),
			req(t, "http://a.test/p?a=1&b=2", "crawl", "c1", "method", "POST"))
		want := []PushResult{{Queued: true}, {Reason: ReasonDuplicate}, {Queued: true}, {Queued: true}, {Queued: true}}
		if !slices.Equal(res, want) {
			t.Errorf("Push = %+v\nwant %+v", res, want)
		}
		// Popped and acked, a request stays seen.
		ls := pop(t, f, 10, t0)
		if _, err := f.Ack(ctx, leases(ls), t0); err != nil {
			t.Fatal(err)
		}
		res = push(t, f, t0, req(t, "http://a.test/p?b=2&a=1", "crawl", "c1"))
		if res[0].Reason != ReasonDuplicate {
			t.Errorf("re-push after ack = %+v, want duplicate", res[0])
		}
		st, _ := f.Stats(ctx)
		if st["refused_duplicate"] != 2 || st[StatPushed] != 4 {
			t.Errorf("Stats = %v", st)
		}
	})
}

// TestDedupeTTL: a crawl's duplicate filter is forgotten after it has been
// idle for DedupeTTL.
func TestDedupeTTL(t *testing.T) {
	now := time.Now() // Redis enforces the expiry with its own clock
	each(t, Options{DedupeTTL: time.Hour}, func(t *testing.T, f Frontier) {
		push(t, f, now.Add(-3*time.Hour), req(t, "http://a.test/", "crawl", "old"))
		push(t, f, now.Add(-30*time.Minute), req(t, "http://a.test/", "crawl", "recent"))
		res := push(t, f, now, req(t, "http://a.test/", "crawl", "old"), req(t, "http://a.test/", "crawl", "recent"))
		if !res[0].Queued || res[1].Reason != ReasonDuplicate {
			t.Errorf("Push = %+v; want the idle crawl's filter expired, the recent one's kept", res)
		}
	})
}
