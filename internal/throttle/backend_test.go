package throttle

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// TestSharedStateNeverDoublesASlot: four handles (processes, to the
// store) reserving on one key at the same instant get every slot of the
// schedule exactly once: 0, T, 2T, …, none twice, none skipped.
func TestSharedStateNeverDoublesASlot(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			open := b.open(t)
			const handles, each = 4, 60
			r := mustRate(t, "100/s", 1)
			var mu sync.Mutex
			var slots []time.Duration
			var wg sync.WaitGroup
			for range handles {
				s := open()
				wg.Go(func() {
					for i := range each {
						reply, err := s.Reserve(ctx, []Request{{Key: "one.test", N: 1 + i%2, Rate: r, MaxWait: NoMaxWait}}, t0)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						for j := range reply.Grants[0].Granted {
							slots = append(slots, reply.Grants[0].Wait(j))
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			slices.Sort(slots)
			for i, s := range slots {
				if s != time.Duration(i)*r.Interval {
					t.Fatalf("slot %d starts at %v, want %v (slots %v…)", i, s, time.Duration(i)*r.Interval, slots[:min(len(slots), i+3)])
				}
			}
			if len(slots) != handles*each*3/2 {
				t.Fatalf("%d slots, want %d", len(slots), handles*each*3/2)
			}
		})
	}
}

// TestRedisServerClock: without CallerClock, the schedule is on the
// server's clock, so two machines whose clocks are an hour apart still
// space their requests one interval apart.
func TestRedisServerClock(t *testing.T) {
	eachRedis(t, testRedisServerClock)
}

// eachRedis runs fn on a Redis server, on a Redis Cluster, and on the
// cluster with the keys split over three slots, one a master (shards=3).
// fn opens its stores under a prefix of its own (testPrefix): the
// cluster is shared by the tests, and a prefix keeps its split.
func eachRedis(t *testing.T, fn func(t *testing.T, url string)) {
	t.Run("redis", func(t *testing.T) { fn(t, redistest.Start(t)) })
	t.Run("cluster", func(t *testing.T) { fn(t, redistest.SharedCluster(t)) })
	t.Run("sharded", func(t *testing.T) { fn(t, redistest.SharedCluster(t)+"?shards=3") })
}

// testPrefix is a key prefix no other test uses, starting with name.
func testPrefix(name string) string { return fmt.Sprintf("%s%d:", name, redisPrefix.Add(1)) }

func testRedisServerClock(t *testing.T, url string) {
	r := mustRate(t, "2/s", 1)
	prefix := testPrefix("clock")
	var stores []Store
	for range 2 {
		s, err := OpenRedis(ctx, url, Options{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	before := time.Now()
	a, err := stores[0].Reserve(ctx, []Request{{Key: "k", N: 1, Rate: r, MaxWait: NoMaxWait}}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	b, err := stores[1].Reserve(ctx, []Request{{Key: "k", N: 1, Rate: r, MaxWait: NoMaxWait}}, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	// The server is on this machine: its clock is ours.
	for _, reply := range []Reply{a, b} {
		if reply.Now.Before(before.Add(-time.Second)) || reply.Now.After(after.Add(time.Second)) {
			t.Fatalf("reply.Now %v is not the server's clock (between %v and %v)", reply.Now, before, after)
		}
	}
	slotA := a.Now.Add(a.Grants[0].Wait(0))
	slotB := b.Now.Add(b.Grants[0].Wait(0))
	if gap := slotB.Sub(slotA); gap != r.Interval {
		t.Fatalf("the second machine's slot is %v after the first's, want %v", gap, r.Interval)
	}
}

// TestRedisExpiresIdleKeys: a key's schedule expires Keep after its last
// slot, so Redis holds only keys in use.
func TestRedisExpiresIdleKeys(t *testing.T) {
	eachRedis(t, testRedisExpiresIdleKeys)
}

func testRedisExpiresIdleKeys(t *testing.T, url string) {
	s, err := OpenRedis(ctx, url, Options{Prefix: testPrefix("ttl"), Keep: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Reserve(ctx, []Request{{Key: "k", N: 5, Rate: mustRate(t, "1/s", 1), MaxWait: NoMaxWait}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	// tat is 5 s ahead: it expires 5 s + Keep from now.
	ttl, err := s.pttl(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 5*time.Second || ttl > 7*time.Second {
		t.Fatalf("TTL %v, want 5s + 2s", ttl)
	}
	// A refusal writes nothing, and leaves the TTL alone.
	if _, err := s.Reserve(ctx, []Request{{Key: "other", N: 1, Rate: mustRate(t, "1/s", 1), MaxWait: 0}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Len(ctx); err != nil || n != 2 {
		t.Fatalf("Len %d (%v), want 2", n, err)
	}
}

// TestSQLiteSharesTheFrontiersFile: the schedule lives in its own table,
// next to whatever else the file holds, and a file that is not SQLite is
// refused with a clear error.
func TestSQLiteSharesTheFrontiersFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	db, err := storage.OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE frontier_queue (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO frontier_queue (url) VALUES ('https://a.test/')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := OpenSQLite(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reserve(ctx, []Request{{Key: "a.test", N: 2, Rate: mustRate(t, "1/s", 1), MaxWait: NoMaxWait}}, t0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var tables []string
	rows, err := raw.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	if strings.Join(tables, " ") != "frontier_queue throttle_slots" {
		t.Fatalf("tables %v", tables)
	}
	var url string
	if err := raw.QueryRow(`SELECT url FROM frontier_queue`).Scan(&url); err != nil || url != "https://a.test/" {
		t.Fatalf("the frontier's row: %q %v", url, err)
	}

	notdb := filepath.Join(t.TempDir(), "notes.txt")
	if err := writeFile(notdb, strings.Repeat("not a database at all ", 20)); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSQLite(ctx, notdb, Options{}); !errors.Is(err, storage.ErrNotDatabase) || !strings.Contains(err.Error(), "throttle: open "+notdb) {
		t.Fatalf("open a text file: %v", err)
	}
}

// TestSQLiteLocked: a reservation that cannot get the write lock within
// the busy timeout fails with an error that says so.
func TestSQLiteLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	s, err := OpenSQLite(ctx, path, Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	_, err = s.Reserve(ctx, []Request{{Key: "a", N: 1, Rate: mustRate(t, "1/s", 1), MaxWait: NoMaxWait}}, t0)
	if !errors.Is(err, storage.ErrLocked) || !strings.Contains(err.Error(), "throttle: reserve "+path+": database is locked by another process") {
		t.Fatalf("reserve on a locked file: %v", err)
	}
}
