package throttle

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/integration"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

var ctx = context.Background()

// t0 is the tests' clock at the start, to the microsecond.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 678901000, time.UTC)

// ref is the reference Store: reserve over maps, nothing else. The
// backends are held to it.
type ref struct {
	mu   sync.Mutex
	tat  map[string]int64
	hold map[string]int64
	tau  map[string]int64 // the last reservation's tolerance
}

func newRef() *ref {
	return &ref{tat: map[string]int64{}, hold: map[string]int64{}, tau: map[string]int64{}}
}

func (r *ref) Reserve(_ context.Context, reqs []Request, now time.Time) (Reply, error) {
	if err := checkRequests(reqs); err != nil {
		return Reply{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := micros(now)
	reply := Reply{Now: time.UnixMicro(n), Grants: make([]Grant, len(reqs))}
	for i, q := range reqs {
		tat, ok := r.tat[q.Key]
		tau := int64(q.Rate.tolerance() / time.Microsecond)
		newTat, base, g := reserve(tat, !ok, r.hold[q.Key], n, q.N, int64(q.Rate.Interval/time.Microsecond), tau, maxWaitMicros(q.MaxWait))
		if g > 0 {
			r.tat[q.Key] = newTat
		}
		r.tau[q.Key] = tau
		reply.Grants[i] = Grant{Granted: g, Base: time.Duration(base-n) * time.Microsecond, Interval: q.Rate.Interval}
	}
	return reply, nil
}

func (r *ref) Hold(_ context.Context, key string, until, now time.Time) error {
	u, _, ok := holdMicros(key, until, now)
	if ok {
		r.mu.Lock()
		r.hold[key] = max(r.hold[key], u)
		r.mu.Unlock()
	}
	return nil
}

func (r *ref) Holds(_ context.Context, keys []string, now time.Time) (map[string]time.Duration, error) {
	held := map[string]time.Duration{}
	for _, k := range keys {
		if h := r.hold[k]; h > micros(now) {
			held[k] = time.Duration(h-micros(now)) * time.Microsecond
		}
	}
	return held, nil
}

func (r *ref) Purge(_ context.Context, before time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := micros(before)
	n := 0
	for _, k := range r.keys() {
		tol, reserved := r.tau[k]
		if !reserved {
			tol = int64(HoldMargin / time.Microsecond)
		}
		if r.tat[k] < b && (r.hold[k] == 0 || r.hold[k]+tol < b) {
			delete(r.tat, k)
			delete(r.hold, k)
			delete(r.tau, k)
			n++
		}
	}
	return n, nil
}

// keys are the keys with a schedule, a hold, or a known rate.
func (r *ref) keys() []string {
	set := map[string]bool{}
	for _, m := range []map[string]int64{r.tat, r.hold, r.tau} {
		for k := range m {
			set[k] = true
		}
	}
	return slices.Collect(maps.Keys(set))
}

func (r *ref) Len(context.Context) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.keys()), nil
}

func (r *ref) Close() error { return nil }

var redisPrefix atomic.Int64

// lazyRedis starts a redis-server for top, the first time a test under
// it asks, and stops it when top ends.
func lazyRedis(top testing.TB) func() string {
	var once sync.Once
	var url string
	return func() string {
		once.Do(func() { url = redistest.Start(top) })
		return url
	}
}

// opener opens a fresh store of one backend; calling the function it
// returns again opens another handle on the same state (another process,
// as far as the store can tell).
type opener func(t testing.TB) (open func() Store)

// backends are the stores under test, the reference first, for the test
// top (the Redis server lives as long as it). Every one counts from the
// clock it is given.
func backends(top testing.TB) []struct {
	name string
	open opener
} {
	redis := lazyRedis(top)
	return []struct {
		name string
		open opener
	}{
		{"ref", func(t testing.TB) func() Store { s := newRef(); return func() Store { return s } }},
		{"local", func(t testing.TB) func() Store { s := NewLocal(); return func() Store { return s } }},
		{"sqlite", func(t testing.TB) func() Store {
			path := filepath.Join(t.TempDir(), "throttle.db")
			return func() Store {
				s, err := OpenSQLite(ctx, path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
		}},
		// Skipped where asked (a Skip on top from a subtest would fail it).
		{"redis", redisOpener(func(t testing.TB) string { integration.Skip(t, "starts redis-server"); return redis() })},
		// The same Redis store on a Redis Cluster, shared by the tests.
		{"cluster", redisOpener(func(t testing.TB) string { return redistest.SharedCluster(t) })},
		// And split over three slots, one a master (shards=3).
		{"sharded", redisOpener(func(t testing.TB) string { return redistest.SharedCluster(t) + "?shards=3" })},
	}
}

// redisOpener opens Redis stores on the server url returns, each fresh
// one under a prefix of its own.
func redisOpener(url func(t testing.TB) string) opener {
	return func(t testing.TB) func() Store {
		url := url(t)
		prefix := fmt.Sprintf("test%d:", redisPrefix.Add(1))
		return func() Store {
			s, err := OpenRedis(ctx, url, Options{Prefix: prefix, CallerClock: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
}

// eachBackend runs fn on a fresh store of every backend.
func eachBackend(t *testing.T, fn func(t *testing.T, s Store)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) { fn(t, b.open(t)()) })
	}
}

func mustRate(t testing.TB, s string, burst int) Rate {
	t.Helper()
	r, err := ParseRate(s)
	if err != nil {
		t.Fatal(err)
	}
	r.Burst = burst
	return r
}

// waits is what one reservation answers for one key: the waits of the
// granted slots, then "refused, next in W" when some were refused.
func waits(g Grant, asked int) string {
	s := ""
	for i := range g.Granted {
		s += g.Wait(i).String() + " "
	}
	if g.Granted < asked {
		s += "refused, next in " + g.Wait(g.Granted).String()
	}
	return s
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
