package toolstats

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/storage"
)

func TestMain(m *testing.M) {
	code := m.Run()
	redistest.StopShared()
	os.Exit(code)
}

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// backends opens a store of each kind over a new frontier: an SQLite
// file, a redis-server, a Redis Cluster.
func backends(t *testing.T) map[string]func(t *testing.T) Store {
	return map[string]func(t *testing.T) Store{
		"sqlite": func(t *testing.T) Store {
			path := filepath.Join(t.TempDir(), "crawl.db")
			fr, err := frontier.OpenSQLite(context.Background(), path, frontier.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fr.Close() })
			return open(t, path)
		},
		"redis":   func(t *testing.T) Store { return open(t, redistest.Start(t)) },
		"cluster": func(t *testing.T) Store { return open(t, redistest.SharedCluster(t)+"?prefix=ts"+t.Name()+":") },
	}
}

func open(t *testing.T, dsn string) Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func snap(tool string, pid int, at time.Time, items int) statspub.Snapshot {
	return statspub.Snapshot{CrawlID: "shop", Tool: tool, Host: "vm", PID: pid, At: at, EveryMS: 5000,
		Stats: json.RawMessage(`{"tool":"` + tool + `","out":` + itoa(items) + `}`)}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestPutList: a snapshot replaces the one of its process, List returns
// the live ones by ID, a snapshot three periods old is gone, an exited
// one lives a minute, and hostile text comes back as it went in.
func TestPutList(t *testing.T) {
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := mk(t)
			ctx := context.Background()
			if got, err := s.List(ctx, t0); err != nil || len(got) != 0 {
				t.Fatalf("List before any Put: %v, %v", got, err)
			}
			hostile := snap("cfetch", 7, t0, 1)
			hostile.CrawlID = `{other}<script>alert(1)</script>` // a hash tag of its own, too
			if err := s.Put(ctx, t0, snap("cexport", 9, t0, 1), snap("cfetch", 8, t0, 1), hostile); err != nil {
				t.Fatal(err)
			}
			// cexport again, later: it replaces the first.
			if err := s.Put(ctx, t0.Add(5*time.Second), snap("cexport", 9, t0.Add(5*time.Second), 40)); err != nil {
				t.Fatal(err)
			}
			got, err := s.List(ctx, t0.Add(6*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || got[0].Tool != "cexport" || got[1].CrawlID != hostile.CrawlID || got[2].PID != 8 {
				t.Fatalf("List: %+v", got)
			}
			if string(got[0].Stats) != `{"tool":"cexport","out":40}` || !got[0].At.Equal(t0.Add(5*time.Second)) {
				t.Errorf("cexport's snapshot: %+v (%s)", got[0], got[0].Stats)
			}
			// 15s after t0 the two cfetch snapshots (every 5s) are gone.
			got, err = s.List(ctx, t0.Add(15*time.Second))
			if err != nil || len(got) != 1 || got[0].Tool != "cexport" {
				t.Fatalf("List 15s later: %+v, %v", got, err)
			}
			last := snap("cexport", 9, t0.Add(16*time.Second), 41)
			code := 0
			last.Exited, last.Exit = true, &code
			if err := s.Put(ctx, last.At, last); err != nil {
				t.Fatal(err)
			}
			for at, want := range map[time.Duration]int{75 * time.Second: 1, 77 * time.Second: 0} {
				got, err = s.List(ctx, t0.Add(at))
				if err != nil || len(got) != want || want == 1 && (!got[0].Exited || *got[0].Exit != 0) {
					t.Errorf("List %s after t0 (exited at 16s): %+v, %v; want %d", at, got, err, want)
				}
			}
		})
	}
}

// TestRedisKeysInTheFrontiersSlot: on a cluster, a snapshot's keys are
// in the frontier's slot (the prefix's hash tag), and they expire by
// themselves.
func TestRedisKeysInTheFrontiersSlot(t *testing.T) {
	url := redistest.SharedCluster(t) + "?prefix=slot:"
	s := open(t, url)
	ctx := context.Background()
	now := time.Now()
	if err := s.Put(ctx, now, snap("cfetch", 1, now, 3)); err != nil {
		t.Fatal(err)
	}
	r := s.(*redisStore)
	if r.index != "{slot:}f:tools" {
		t.Errorf("index key %q", r.index)
	}
	key := r.index + ":" + snap("cfetch", 1, now, 3).ID()
	if a, b := storage.RedisSlot(key), storage.RedisSlot("{slot:}f:counts"); a != b {
		t.Errorf("slot of %q is %d, the frontier's %d", key, a, b)
	}
	ttl, err := r.conn.Client.PTTL(ctx, key).Result()
	if err != nil || ttl <= 0 || ttl > statspub.MinTTL {
		t.Errorf("PTTL %s: %v, %v; want (0, 15s]", key, ttl, err)
	}
	if ttl, err := r.conn.Client.PTTL(ctx, r.index).Result(); err != nil || ttl <= 0 || ttl > statspub.MinTTL {
		t.Errorf("PTTL of the index: %v, %v; want (0, 15s]", ttl, err)
	}
}

// TestOpenNoFrontier: a tool's stats never create the frontier's file.
func TestOpenNoFrontier(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.db")
	if _, err := Open(context.Background(), path, Options{}); !errors.Is(err, ErrNoStore) {
		t.Errorf("Open(%s): %v, want ErrNoStore", path, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s was created", path)
	}
}
