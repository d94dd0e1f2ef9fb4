package throttle

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage"
)

// holdStep is one call of a hold scenario: after moving the clock by
// after, hold key until d past now; or reserve n slots of key at rate
// (burst b), no further ahead than max wait d (0: no limit); or purge
// what is free at now; and require want.
type holdStep struct {
	after time.Duration
	op    string // "hold", "reserve" or "purge"
	key   string
	n     int
	rate  string
	b     int
	d     time.Duration
	want  string
}

// TestHolds walks every backend through scenarios of holds, the clock
// moved by hand.
func TestHolds(t *testing.T) {
	hold := func(after time.Duration, key string, d time.Duration) holdStep {
		return holdStep{after: after, op: "hold", key: key, d: d}
	}
	res := func(after time.Duration, key string, n int, rate string, b int, want string) holdStep {
		return holdStep{after: after, op: "reserve", key: key, n: n, rate: rate, b: b, want: want}
	}
	purge := func(after time.Duration, want string) holdStep {
		return holdStep{after: after, op: "purge", want: want}
	}
	// holds reads the holds of a, b and c.
	holds := func(after time.Duration, want string) holdStep {
		return holdStep{after: after, op: "holds", want: want}
	}
	scenarios := map[string][]holdStep{
		"a hold delays slot 0 to the hold, then the rate": {
			res(0, "a", 1, "5/s", 1, "0s "),
			hold(0, "a", 2*time.Second),
			res(0, "a", 3, "5/s", 1, "2s 2.2s 2.4s "),
			// Other keys are not held.
			res(0, "b", 1, "5/s", 1, "0s "),
			// The slots after the hold go on from the last one.
			res(100*time.Millisecond, "a", 1, "5/s", 1, "2.5s "),
		},
		"a key held before its first reservation": {
			hold(0, "a", time.Second),
			res(0, "a", 2, "1/s", 1, "1s 2s "),
		},
		"a burst does not start before the hold, nor all at once after it": {
			hold(0, "a", 2*time.Second),
			res(0, "a", 4, "1/s", 3, "2s 3s 4s 5s "),
			// Idle long enough, the burst is back.
			res(10*time.Second, "a", 4, "1/s", 3, "0s 0s 0s 1s "),
		},
		"after a hold the burst refills one slot per interval": {
			hold(0, "a", 2*time.Second),
			// One interval after the hold: the slot of the hold and one
			// more may start at once; then one per interval.
			res(3*time.Second, "a", 4, "1/s", 3, "0s 0s 1s 2s "),
		},
		"a shorter hold never shortens a longer one": {
			hold(0, "a", 3*time.Second),
			hold(0, "a", time.Second),
			res(0, "a", 1, "5/s", 1, "3s "),
			hold(0, "a", 5*time.Second),
			res(0, "a", 1, "5/s", 1, "5s "),
		},
		"a hold within the slots already reserved changes nothing": {
			res(0, "a", 3, "1/s", 1, "0s 1s 2s "),
			hold(0, "a", 1500*time.Millisecond),
			res(0, "a", 1, "1/s", 1, "3s "),
		},
		"no key, or no time ahead: no hold": {
			hold(0, "", time.Hour),
			hold(0, "a", -time.Second),
			hold(0, "a", 0),
			purge(0, "purged 0, 0 left"),
			res(0, "a", 2, "1/s", 1, "0s 1s "),
		},
		"max wait counts to the hold": {
			hold(0, "a", 2*time.Second),
			{op: "reserve", key: "a", n: 1, rate: "1/s", b: 1, d: time.Second, want: "refused, next in 2s"},
			{op: "reserve", key: "a", n: 2, rate: "1/s", b: 1, d: 2 * time.Second, want: "2s refused, next in 3s"},
		},
		"purge keeps a key while its hold can change an answer": {
			// A key never reserved: its tolerance is not known, so its
			// hold is kept HoldMargin past its end.
			hold(0, "a", 10*time.Second),
			res(0, "b", 1, "1/s", 1, "0s "),
			hold(0, "b", 5*time.Second),
			purge(0, "purged 0, 2 left"),
			// b's schedule is free at 1 s; its hold (tolerance 0) ends at 5 s.
			purge(3*time.Second, "purged 0, 2 left"),
			purge(3*time.Second, "purged 1, 1 left"),
			purge(HoldMargin, "purged 0, 1 left"),
			purge(5*time.Second, "purged 1, 0 left"),
		},
		"Holds tells how long each key is still held": {
			holds(0, ""),
			hold(0, "a", 2*time.Second),
			res(0, "b", 1, "1/s", 1, "0s "),
			hold(0, "c", 500*time.Millisecond),
			holds(0, "a 2s c 500ms "),
			holds(300*time.Millisecond, "a 1.7s c 200ms "),
			// Over: no longer held, though remembered.
			holds(time.Second, "a 700ms "),
			hold(0, "b", time.Second),
			holds(0, "a 700ms b 1s "),
			holds(2*time.Second, ""),
		},
		"purge keeps a burst key until its burst has refilled after the hold": {
			res(0, "a", 1, "1/s", 3, "0s "),
			hold(0, "a", 2*time.Second),
			// tat is 1 s, but the bucket empties at 2 s and is full again
			// at 4 s: forgetting the key before then would give its burst
			// back early.
			purge(3*time.Second, "purged 0, 1 left"),
			res(0, "a", 3, "1/s", 3, "0s 0s 1s "),
		},
	}
	for name, steps := range scenarios {
		t.Run(name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, s Store) {
				now := t0
				for i, st := range steps {
					now = now.Add(st.after)
					var got string
					switch st.op {
					case "purge":
						n, err := s.Purge(ctx, now)
						if err != nil {
							t.Fatal(err)
						}
						left, err := s.Len(ctx)
						if err != nil {
							t.Fatal(err)
						}
						if _, isRedis := s.(*Redis); isRedis {
							continue // Redis expires keys by their TTL, on its own clock
						}
						got = "purged " + itoa(n) + ", " + itoa(left) + " left"
					case "holds":
						held, err := s.Holds(ctx, []string{"a", "b", "c"}, now)
						if err != nil {
							t.Fatal(err)
						}
						for _, k := range []string{"a", "b", "c"} {
							if d, ok := held[k]; ok {
								got += k + " " + d.String() + " "
							}
						}
					case "hold":
						if err := s.Hold(ctx, st.key, now.Add(st.d), now); err != nil {
							t.Fatal(err)
						}
					default:
						maxWait := NoMaxWait
						if st.d > 0 {
							maxWait = st.d
						}
						reply, err := s.Reserve(ctx, []Request{{Key: st.key, N: st.n, Rate: mustRate(t, st.rate, st.b), MaxWait: maxWait}}, now)
						if err != nil {
							t.Fatal(err)
						}
						got = waits(reply.Grants[0], st.n)
					}
					if got != st.want {
						t.Fatalf("step %d (%s %q at +%v): got %q, want %q", i, st.op, st.key, now.Sub(t0), got, st.want)
					}
				}
			})
		})
	}
}

// TestSQLiteAddsHoldToOldFiles: a file whose throttle_slots predates
// holds gets the column when opened (by several processes at once), keeps
// its schedules, and still takes the statements of programs that predate
// holds.
func TestSQLiteAddsHoldToOldFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := storage.OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	const oldSchema = `CREATE TABLE throttle_slots (key TEXT PRIMARY KEY, tat_us INTEGER NOT NULL, base_us INTEGER NOT NULL,
		granted INTEGER NOT NULL, now_us INTEGER NOT NULL, asked INTEGER NOT NULL, interval_us INTEGER NOT NULL,
		tau_us INTEGER NOT NULL, max_wait_us INTEGER NOT NULL) WITHOUT ROWID`
	// An old program's reservation: a.test has slots up to 3 s.
	oldRow := `INSERT INTO throttle_slots (key, tat_us, base_us, granted, now_us, asked, interval_us, tau_us, max_wait_us)
		VALUES (?, ?, 0, 3, ?, 3, 1000000, 0, -1)`
	if _, err := db.ExecContext(ctx, oldSchema); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, oldRow, "a.test", micros(t0)+3_000_000, micros(t0)); err != nil {
		t.Fatal(err)
	}
	db.Close()

	var wg sync.WaitGroup
	stores := make([]*SQLite, 4)
	for i := range stores {
		wg.Go(func() {
			s, err := OpenSQLite(ctx, path, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			t.Cleanup(func() { s.Close() })
			stores[i] = s
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	s := stores[0]
	r := mustRate(t, "1/s", 1)
	reply, err := s.Reserve(ctx, []Request{{Key: "a.test", N: 1, Rate: r, MaxWait: NoMaxWait}}, t0)
	if err != nil || waits(reply.Grants[0], 1) != "3s " {
		t.Fatalf("the old schedule: %v %v", reply.Grants, err)
	}
	if err := stores[1].Hold(ctx, "a.test", t0.Add(10*time.Second), t0); err != nil {
		t.Fatal(err)
	}
	reply, err = stores[2].Reserve(ctx, []Request{{Key: "a.test", N: 1, Rate: r, MaxWait: NoMaxWait}}, t0)
	if err != nil || waits(reply.Grants[0], 1) != "10s " {
		t.Fatalf("after the hold: %v %v", reply.Grants, err)
	}
	// An old program's row, on the new table: no hold.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, oldRow, "b.test", micros(t0)+2_000_000, micros(t0)); err != nil {
		t.Fatalf("an old program's statement on the new table: %v", err)
	}
	reply, err = stores[3].Reserve(ctx, []Request{{Key: "b.test", N: 1, Rate: r, MaxWait: NoMaxWait}}, t0)
	if err != nil || waits(reply.Grants[0], 1) != "2s " {
		t.Fatalf("b.test: %v %v", reply.Grants, err)
	}
}

// TestRedisHoldKey: a hold is a key of its own that outlives the hold
// (by HoldMargin while the key's tolerance is unknown), then expires
// with the schedule once a reservation has passed it; and, on the
// server's clock, a hold from a machine whose clock is an hour off still
// holds for the time it asked.
func TestRedisHoldKey(t *testing.T) {
	eachRedis(t, func(t *testing.T, url string) {
		s, err := OpenRedis(ctx, url, Options{Prefix: testPrefix("holdttl"), Keep: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		now := time.Now()
		if err := s.Hold(ctx, "k", now.Add(5*time.Second).Add(-time.Hour), now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		ttl, err := s.holdPTTL(ctx, "k")
		if err != nil || ttl <= HoldMargin+4*time.Second || ttl > HoldMargin+6*time.Second {
			t.Fatalf("hold TTL %v (%v), want 5s + HoldMargin", ttl, err)
		}
		if n, err := s.Len(ctx); err != nil || n != 1 {
			t.Fatalf("Len %d (%v), want 1", n, err)
		}
		reply, err := s.Reserve(ctx, []Request{{Key: "k", N: 2, Rate: mustRate(t, "1/s", 1), MaxWait: NoMaxWait}}, time.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if w := reply.Grants[0].Wait(0); w <= 4*time.Second || w > 5*time.Second {
			t.Fatalf("slot 0 in %v, want the hold, 5s after it was asked for", w)
		}
		// tat is 7 s ahead: both keys expire 7 s + Keep from now.
		for _, get := range []func(context.Context, string) (time.Duration, error){s.pttl, s.holdPTTL} {
			if ttl, err := get(ctx, "k"); err != nil || ttl <= 8*time.Second || ttl > 10*time.Second {
				t.Fatalf("TTL %v (%v), want 7s + 2s", ttl, err)
			}
		}
		if n, err := s.Len(ctx); err != nil || n != 1 {
			t.Fatalf("Len %d (%v), want 1", n, err)
		}
	})
}
