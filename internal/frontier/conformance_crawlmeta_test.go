package frontier

import (
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"
)

// The conformance suite (see conformance_test.go): the crawls' metadata.

// TestCrawlMeta: each crawl has its own metadata; without replace the
// values already set stand, with replace they change; other keys are kept;
// the requests of a crawl, and its stop, leave the metadata alone.
func TestCrawlMeta(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		if m, err := f.CrawlMeta(ctx, "shop"); err != nil || m == nil || len(m) != 0 {
			t.Fatalf("CrawlMeta(new crawl) = %v, %v; want an empty map", m, err)
		}
		set := func(crawl string, replace bool, kv ...string) map[string]string {
			t.Helper()
			meta := map[string]string{}
			for i := 0; i+1 < len(kv); i += 2 {
				meta[kv[i]] = kv[i+1]
			}
			m, err := f.SetCrawlMeta(ctx, crawl, meta, replace)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		want := func(got map[string]string, kv ...string) {
			t.Helper()
			w := map[string]string{}
			for i := 0; i+1 < len(kv); i += 2 {
				w[kv[i]] = kv[i+1]
			}
			if !maps.Equal(got, w) {
				t.Errorf("metadata %v, want %v", got, w)
			}
		}
		want(set("shop", false, "rules", "a.yml", "rules_sha256", "aaaa"), "rules", "a.yml", "rules_sha256", "aaaa")
		// Not replaced: the first values stand, a new key is added.
		want(set("shop", false, "rules", "b.yml", "rules_sha256", "bbbb", "seeds", "s.txt"),
			"rules", "a.yml", "rules_sha256", "aaaa", "seeds", "s.txt")
		// Replaced: changed; keys not named are kept.
		want(set("shop", true, "rules", "b.yml", "rules_sha256", "bbbb"),
			"rules", "b.yml", "rules_sha256", "bbbb", "seeds", "s.txt")
		m, err := f.CrawlMeta(ctx, "shop")
		if err != nil {
			t.Fatal(err)
		}
		want(m, "rules", "b.yml", "rules_sha256", "bbbb", "seeds", "s.txt")
		// Nothing set: the metadata as it is.
		want(set("shop", false), "rules", "b.yml", "rules_sha256", "bbbb", "seeds", "s.txt")
		// Another crawl, with a name that could be confused with a key.
		want(set("shop:rules", false, "x", ""), "x", "")
		if m, _ := f.CrawlMeta(ctx, "other"); len(m) != 0 {
			t.Errorf("CrawlMeta(other) = %v", m)
		}
		// Requests and a stop do not touch it.
		push(t, f, t0, req(t, "http://a.test/", "crawl", "shop"))
		pop(t, f, 1, t0)
		if _, err := f.Stop(ctx, "shop", t0); err != nil {
			t.Fatal(err)
		}
		m, _ = f.CrawlMeta(ctx, "shop")
		want(m, "rules", "b.yml", "rules_sha256", "bbbb", "seeds", "s.txt")
	})
}

// TestCrawlMetaFirstWins: processes starting one crawl at once all get the
// values of the one that came first.
func TestCrawlMetaFirstWins(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		const n = 8
		got := make([]map[string]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				m, err := f.SetCrawlMeta(ctx, "race", map[string]string{"rules_sha256": fmt.Sprint(i), "started_at": fmt.Sprint(i)}, false)
				if err != nil {
					t.Error(err)
				}
				got[i] = m
			})
		}
		wg.Wait()
		for i := range n {
			if !maps.Equal(got[i], got[0]) || got[i]["rules_sha256"] != got[i]["started_at"] {
				t.Fatalf("caller %d got %v, caller 0 %v", i, got[i], got[0])
			}
		}
	})
}

// TestRunLockPerMachine: a crawl's run lock is one a machine. A second
// holder on the same machine is refused while the lock lasts (it may take
// it once the first lets go, or the lock expires, or by stealing it from
// a holder it knows gone); a holder on another machine takes its own, as
// the same command run on every machine joins one crawl.
func TestRunLockPerMachine(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		lock := func(holder, steal string, now time.Time) string {
			t.Helper()
			cur, ok, err := f.LockCrawl(ctx, "shop", holder, steal, time.Minute, now)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(cur, " ", ok)
		}
		for _, step := range []struct{ holder, steal, want string }{
			{"a 1 boot", "", "a 1 boot true"},
			{"a 1 boot", "", "a 1 boot true"}, // renewed
			{"a 2 boot", "", "a 1 boot false"},
			{"b 3 boot", "", "b 3 boot true"},         // another machine
			{"b 4 boot", "", "b 3 boot false"},        // which holds its own
			{"a 2 boot", "a 1 boot", "a 2 boot true"}, // stolen from one known gone
			{"a 1 boot", "", "a 2 boot false"},
		} {
			if got := lock(step.holder, step.steal, t0); got != step.want {
				t.Errorf("LockCrawl(%q, steal %q) = %s, want %s", step.holder, step.steal, got, step.want)
			}
		}
		if got := lock("a 5 boot", "", t0.Add(2*time.Minute)); got != "a 5 boot true" {
			t.Errorf("after the lock expired: %s", got)
		}
		if err := f.UnlockCrawl(ctx, "shop", "b 3 boot"); err != nil {
			t.Fatal(err)
		}
		if got := lock("b 4 boot", "", t0); got != "b 4 boot true" {
			t.Errorf("after b 3 let go: %s", got)
		}
		if got := lock("a 6 boot", "", t0.Add(2*time.Minute)); got != "a 5 boot false" {
			t.Errorf("b letting go freed a's lock: %s", got)
		}
	})
}
