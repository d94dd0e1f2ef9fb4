package dedupe

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// backends opens a fresh store of each kind for t.
func backends(t *testing.T, o Options) map[string]Store {
	t.Helper()
	ctx := context.Background()
	out := map[string]Store{}
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "seen.db"), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	out["sqlite"] = s
	url := redistest.Start(t)
	r, err := OpenRedis(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	out["redis"] = r
	// The same, running each call twice as a retry after a lost answer
	// does: the second run must answer what the first did.
	or := o
	or.Prefix = "replayed:"
	rr, err := OpenRedis(ctx, url, or)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rr.Close() })
	rr.replayed = true
	out["replayed"] = rr
	// The same Redis store on a Redis Cluster, shared by the tests, each
	// under a prefix of its own.
	oc := o
	oc.Prefix = fmt.Sprintf("test%d:", clusterPrefixN.Add(1))
	c, err := OpenRedis(ctx, redistest.SharedCluster(t), oc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	out["cluster"] = c
	// And split over three slots, one a master (shards=3), with and
	// without replayed calls: the replay holds per shard.
	for _, replayed := range []bool{false, true} {
		osh := o
		osh.Prefix = fmt.Sprintf("test%d:", clusterPrefixN.Add(1))
		s, err := OpenRedis(ctx, redistest.SharedCluster(t)+"?shards=3", osh)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if s.Shards() != 3 {
			t.Fatalf("shards=3 opened %d shards", s.Shards())
		}
		s.replayed = replayed
		out[map[bool]string{false: "sharded", true: "sharded_replayed"}[replayed]] = s
	}
	return out
}

var clusterPrefixN atomic.Int64

func forEach(t *testing.T, o Options, fn func(t *testing.T, s Store)) {
	for name, s := range backends(t, o) {
		t.Run(name, func(t *testing.T) { fn(t, s) })
	}
}

var t0 = time.Now().Truncate(time.Millisecond)

func keys(hs ...uint64) []Key {
	out := make([]Key, len(hs))
	for i, h := range hs {
		out[i] = HashKey(h)
	}
	return out
}

func TestSeenBatch(t *testing.T) {
	ctx := context.Background()
	forEach(t, Options{}, func(t *testing.T, s Store) {
		got, err := s.SeenBatch(ctx, "c1", keys(1, 2, 1, 3), t0)
		if err != nil {
			t.Fatal(err)
		}
		if want := []bool{true, true, false, true}; !slices.Equal(got, want) {
			t.Errorf("first batch = %v, want %v", got, want)
		}
		got, _ = s.SeenBatch(ctx, "c1", keys(3, 4, 1<<63, ^uint64(0)), t0)
		if want := []bool{false, true, true, true}; !slices.Equal(got, want) {
			t.Errorf("second batch = %v, want %v", got, want)
		}
		// Namespaces are separate.
		got, _ = s.SeenBatch(ctx, "c2", keys(1), t0)
		if !got[0] {
			t.Error("key of c1 seen in c2")
		}
		if n, _ := s.Len(ctx, "c1", t0); n != 6 {
			t.Errorf("Len(c1) = %d, want 6", n)
		}
		if got, _ := s.SeenBatch(ctx, "c1", nil, t0); len(got) != 0 {
			t.Errorf("empty batch = %v", got)
		}
		if err := s.Forget(ctx, "c1"); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.Len(ctx, "c1", t0); n != 0 {
			t.Errorf("Len after Forget = %d", n)
		}
		got, _ = s.SeenBatch(ctx, "c1", keys(1), t0)
		if !got[0] {
			t.Error("key still seen after Forget")
		}
	})
}

func TestScrapyKeysExport(t *testing.T) {
	ctx := context.Background()
	forEach(t, Options{}, func(t *testing.T, s Store) {
		var fps [][20]byte
		var ks []Key
		for i := range 50 {
			fp := sha1.Sum([]byte(fmt.Sprint(i)))
			fps = append(fps, fp)
			ks = append(ks, ScrapyKey(fp))
		}
		if _, err := s.SeenBatch(ctx, "scrapy", ks, t0); err != nil {
			t.Fatal(err)
		}
		var got [][20]byte
		err := s.Export(ctx, "scrapy", t0, func(k Key) error {
			if !k.Scrapy {
				t.Errorf("exported key %v is not a Scrapy key", k)
			}
			got = append(got, k.SHA1)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sortFPs(got)
		sortFPs(fps)
		if !slices.Equal(got, fps) {
			t.Errorf("exported %d fingerprints, want the %d stored", len(got), len(fps))
		}
		stop := errors.New("stop")
		if err := s.Export(ctx, "scrapy", t0, func(Key) error { return stop }); err != stop {
			t.Errorf("Export did not return fn's error: %v", err)
		}
	})
}

func sortFPs(fps [][20]byte) {
	slices.SortFunc(fps, func(a, b [20]byte) int { return slices.Compare(a[:], b[:]) })
}

// TestIdleExpiry: a namespace idle for TTL expires as a whole; a touch
// within TTL keeps it (Scrapy Cluster's dupefilter timeout).
func TestIdleExpiry(t *testing.T) {
	ctx := context.Background()
	const ttl = time.Hour
	forEach(t, Options{TTL: ttl}, func(t *testing.T, s Store) {
		// Touched within the TTL: kept.
		s.SeenBatch(ctx, "live", keys(1), t0.Add(-50*time.Minute))
		if got, _ := s.SeenBatch(ctx, "live", keys(1), t0); got[0] {
			t.Error("a namespace touched 50 minutes ago (TTL 1h) expired")
		}
		// Idle for longer than the TTL: forgotten.
		s.SeenBatch(ctx, "idle", keys(1, 2), t0.Add(-2*time.Hour))
		if n, _ := s.Len(ctx, "idle", t0); n != 0 {
			t.Errorf("Len of an expired namespace = %d", n)
		}
		if got, _ := s.SeenBatch(ctx, "idle", keys(1), t0); !got[0] {
			t.Error("a namespace idle for 2h (TTL 1h) did not expire")
		}
		if _, err := s.Expire(ctx, t0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSQLiteExpireReclaims(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "x.db"), Options{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SeenBatch(ctx, "a", keys(1, 2, 3), t0)
	s.SeenBatch(ctx, "b", keys(1), t0.Add(time.Minute))
	n, err := s.Expire(ctx, t0.Add(90*time.Second))
	if err != nil || n != 1 {
		t.Fatalf("Expire = %d, %v; want 1", n, err)
	}
	var rows int
	s.db.QueryRow(`SELECT count(*) FROM dedupe_seen`).Scan(&rows)
	if rows != 1 {
		t.Errorf("%d keys left, want 1 (namespace b)", rows)
	}
}

// TestConcurrentSeen: goroutines racing on the same keys; each key is new
// for exactly one of them.
func TestConcurrentSeen(t *testing.T) {
	ctx := context.Background()
	forEach(t, Options{}, func(t *testing.T, s Store) {
		const workers, n = 4, 300
		var mu sync.Mutex
		firsts := map[uint64]int{}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < n; i += 10 {
					batch := make([]Key, 0, 10)
					for j := range 10 {
						batch = append(batch, HashKey(uint64((i+j+w*7)%n)))
					}
					got, err := s.SeenBatch(ctx, "race", batch, t0)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					for j, isNew := range got {
						if isNew {
							firsts[batch[j].Hash]++
						}
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(firsts) != n {
			t.Errorf("%d keys reported new, want %d", len(firsts), n)
		}
		for k, c := range firsts {
			if c != 1 {
				t.Errorf("key %d reported new %d times", k, c)
			}
		}
	})
}

func TestOpenPicksBackend(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "a.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*SQLite); !ok {
		t.Errorf("Open(path) = %T", s)
	}
	s.Close()
	r, err := Open(ctx, redistest.Start(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*Redis); !ok {
		t.Errorf("Open(redis://) = %T", r)
	}
	r.Close()
	if _, err := Open(ctx, "redis://127.0.0.1:1/0", Options{}); err == nil {
		t.Error("Open of an unreachable Redis succeeded")
	}
}
