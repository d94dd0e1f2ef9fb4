package frontier

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/storage"
)

func urlsOf(ls []Leased) []string {
	var out []string
	for _, l := range ls {
		var r record.Request
		record.Decode(l.Raw, &r)
		out = append(out, r.URL)
	}
	return out
}

// fillBatch is batch i of 100 distinct requests, each with 200 bytes of
// attrs so the file grows.
func fillBatch(i int) []Entry {
	pad := strings.Repeat("x", 200)
	var out []Entry
	for j := range 100 {
		e, err := NewEntry(record.Request{Kind: record.KindRequest, URL: fmt.Sprintf("http://h%d.test/%d/%d", j%5, i, j),
			Attrs: []byte(`{"pad":"` + pad + `"}`)}, KeyFast)
		if err != nil {
			panic(err)
		}
		out = append(out, e)
	}
	return out
}

// startChild re-executes the test binary in role, on the database at path.
func startChild(t *testing.T, role, path string, env ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"FRONTIER_TEST_CHILD=" + role, "FRONTIER_TEST_DB=" + path}, env...)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The test waits for the child itself (its exit status is what it
	// checks); a test that ends early leaves it killed.
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, stdin, bufio.NewReader(stdout)
}

func openSQLite(t *testing.T, path string, o Options) *SQLite {
	t.Helper()
	f, err := OpenSQLite(ctx, path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestSQLiteNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.db")
	content := []byte(strings.Repeat("these are my notes, not a database\n", 200))
	os.WriteFile(path, content, 0o644)
	_, err := OpenSQLite(ctx, path, Options{})
	if err == nil {
		t.Fatal("OpenSQLite of a text file succeeded")
	}
	want := "frontier: open " + path + ": file is not a database ("
	if !strings.HasPrefix(err.Error(), want) || !errors.Is(err, storage.ErrNotDatabase) {
		t.Errorf("error = %q, want it to start with %q and wrap ErrNotDatabase", err, want)
	}
	if got, _ := os.ReadFile(path); string(got) != string(content) {
		t.Error("the file was modified")
	}
	if _, err := OpenSQLite(ctx, t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("OpenSQLite(directory) = %v", err)
	}
}

// TestSQLiteLockedByAnotherProcess: a writer that holds the lock past the
// busy timeout gives a clear error, changes nothing, and once it lets go
// the frontier works again.
func TestSQLiteLockedByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := openSQLite(t, path, Options{BusyTimeout: 200 * time.Millisecond})
	push(t, f, t0, req(t, "http://a.test/1"))
	cmd, stdin, stdout := startChild(t, "lock", path)
	if line, err := stdout.ReadString('\n'); line != "locked\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	start := time.Now()
	_, err := f.Push(ctx, []Entry{req(t, "http://a.test/2")}, t0)
	if err == nil {
		t.Fatal("Push succeeded while another process held the write lock")
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("gave up after %v, before the 200ms busy timeout", waited)
	}
	want := "database is locked by another process (still locked after the 200ms busy timeout)"
	if !strings.Contains(err.Error(), want) || !errors.Is(err, storage.ErrLocked) || !strings.HasPrefix(err.Error(), "frontier: push ") {
		t.Errorf("error = %q, want %q wrapping ErrLocked", err, want)
	}
	if _, err := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute}, t0); !errors.Is(err, storage.ErrLocked) {
		t.Errorf("Pop while locked = %v", err)
	}
	// Readers are not blocked by the writer (WAL).
	if c, err := f.Counts(ctx); err != nil || c.Queued != 1 {
		t.Errorf("Counts while locked = %+v, %v", c, err)
	}
	stdin.Close()
	cmd.Wait()
	push(t, f, t0, req(t, "http://a.test/2"))
	wantCounts(t, f, 2, 0, 0)
}

// TestSQLiteDiskFull: SQLITE_FULL (simulated with PRAGMA max_page_count)
// gives a clear error; the failed batch is not half-written, nothing queued
// before is lost, the file passes integrity_check, and with room again the
// frontier goes on.
func TestSQLiteDiskFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := openSQLite(t, path, Options{})
	// One connection, so the per-connection pragma applies to every statement.
	f.db.SetMaxOpenConns(1)
	var pages int64
	f.db.QueryRow("PRAGMA page_count").Scan(&pages)
	if _, err := f.db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+40)); err != nil {
		t.Fatal(err)
	}
	queued := 0
	var err error
	for i := 0; i < 1000; i++ {
		if _, err = f.Push(ctx, fillBatch(i), t0); err != nil {
			break
		}
		queued += 100
	}
	if err == nil {
		t.Fatal("no error with a 40-page limit")
	}
	if !errors.Is(err, storage.ErrFull) || !strings.Contains(err.Error(), "disk full") || !strings.HasPrefix(err.Error(), "frontier: push "+path+": ") {
		t.Errorf("error = %q, want a disk full error wrapping ErrFull", err)
	}
	t.Logf("queued %d requests before: %v", queued, err)
	wantCounts(t, f, int64(queued), 0, 0)
	var check string
	f.db.QueryRow("PRAGMA integrity_check").Scan(&check)
	if check != "ok" {
		t.Errorf("integrity_check: %s", check)
	}
	// Popping needs no new pages; then with room again pushes resume.
	if ls := pop(t, f, 3, t0); len(ls) != 3 {
		t.Errorf("Pop when full = %d requests", len(ls))
	}
	f.db.Exec("PRAGMA max_page_count = 1000000")
	push(t, f, t0, fillBatch(5000)...)
	wantCounts(t, f, int64(queued+100-3), 3, 0)
}

// TestSQLiteFileSizeLimit: a process stopped by a file size limit
// (RLIMIT_FSIZE) in the middle of pushing leaves a sound file with every
// request it had queued.
func TestSQLiteFileSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := openSQLite(t, path, Options{})
	push(t, f, t0, fillBatch(-1)...)
	f.Close()
	fi, _ := os.Stat(path)
	cmd, stdin, stdout := startChild(t, "fill", path, fmt.Sprintf("FRONTIER_TEST_FSIZE=%d", fi.Size()+300_000))
	stdin.Close()
	out, _ := io.ReadAll(stdout)
	cmd.Wait()
	lines := strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)
	if len(lines) != 2 {
		t.Fatalf("child said %q", out)
	}
	n, _ := strconv.Atoi(lines[0])
	t.Logf("child queued %d, then: %s", n, lines[1])
	if n == 0 || !strings.HasPrefix(lines[1], "frontier: push ") || !(strings.Contains(lines[1], "I/O error") || strings.Contains(lines[1], "disk full")) {
		t.Errorf("child queued %d, error %q", n, lines[1])
	}
	f = openSQLite(t, path, Options{})
	wantCounts(t, f, int64(100+n), 0, 0)
	var check string
	f.db.QueryRow("PRAGMA integrity_check").Scan(&check)
	if check != "ok" {
		t.Errorf("integrity_check: %s", check)
	}
}

// TestSQLiteProcesses: several processes popping from one file never get
// the same request twice, and together get every request exactly once.
func TestSQLiteProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	// Four processes take turns at the write lock as fast as they can: on
	// a loaded machine (and under the race detector) one can wait longer
	// than the default 5 s. The children wait up to 30 s too.
	f := openSQLite(t, path, Options{BusyTimeout: 30 * time.Second})
	const n = 2000
	var all []string
	for i := 0; i < n; i += 200 {
		var es []Entry
		for j := i; j < i+200; j++ {
			u := fmt.Sprintf("http://h%d.test/%d", j%13, j)
			es = append(es, req(t, u))
			all = append(all, u)
		}
		push(t, f, t0, es...)
	}
	const children = 3
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for range children {
		cmd, stdin, stdout := startChild(t, "pop", path)
		stdin.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				mu.Lock()
				got[sc.Text()]++
				mu.Unlock()
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("child: %v", err)
			}
		}()
	}
	// The parent pops too, from its own connection.
	for {
		ls := pop(t, f, 5, t0)
		if len(ls) == 0 {
			break
		}
		mu.Lock()
		for _, u := range urls(t, ls) {
			got[u]++
		}
		mu.Unlock()
		f.Ack(ctx, leases(ls), t0)
	}
	wg.Wait()
	var missing []string
	for _, u := range all {
		switch got[u] {
		case 0:
			missing = append(missing, u)
		case 1:
		default:
			t.Errorf("%s popped %d times", u, got[u])
		}
	}
	if len(missing) > 0 || len(got) != n {
		t.Errorf("%d popped, %d missing (%v…)", len(got), len(missing), missing[:min(3, len(missing))])
	}
	if done, _ := f.Done(ctx); !done {
		t.Errorf("not Done: %+v", counts(t, f))
	}
}

// TestSQLiteReopen: everything survives closing and reopening the file,
// leases included.
func TestSQLiteReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f, _ := OpenSQLite(ctx, path, Options{})
	push(t, f, t0, req(t, "http://a.test/1", "crawl", "c"), req(t, "http://a.test/2", "crawl", "c"))
	ls := pop(t, f, 1, t0)
	f.Close()
	f = openSQLite(t, path, Options{})
	wantCounts(t, f, 1, 1, 0)
	if a, _ := f.Ack(ctx, leases(ls), t0); a.Acked != 1 {
		t.Errorf("ack after reopen = %+v", a)
	}
	if res := push(t, f, t0, req(t, "http://a.test/1", "crawl", "c")); res[0].Reason != ReasonDuplicate {
		t.Errorf("the duplicate filter did not survive: %+v", res)
	}
}

// TestSQLiteQueryPlans: the hot statements use their indexes, so pop, ack
// and reclaim stay O(log n) at 10 million rows.
func TestSQLiteQueryPlans(t *testing.T) {
	f := openSQLite(t, filepath.Join(t.TempDir(), "f.db"), Options{})
	for q, want := range map[string]string{
		`SELECT id FROM frontier_queues WHERE queued > 0 ORDER BY top DESC, turn, id LIMIT 5`:                                                              "frontier_queues_ready",
		`SELECT id, crawl, host, queued, in_flight, dead, top, turn FROM frontier_queues WHERE queued > 0 ORDER BY top DESC, turn, id`:                     "frontier_queues_ready",
		`SELECT id FROM frontier_entries WHERE queue = 1 AND state = 0 ORDER BY prio DESC, ord LIMIT 1`:                                                    "frontier_entries_pop",
		`SELECT prio FROM frontier_entries WHERE queue = 1 AND state = 0 ORDER BY prio ASC, ord DESC LIMIT 1`:                                              "frontier_entries_pop",
		`SELECT id FROM frontier_entries WHERE state = 1 AND deadline <= 5`:                                                                                "frontier_entries_lease",
		`DELETE FROM frontier_entries WHERE id = 1 AND lease = 2`:                                                                                          "INTEGER PRIMARY KEY",
		`SELECT id FROM frontier_crawls WHERE state = 0 AND expires != 0 AND expires <= 5`:                                                                 "frontier_crawls_expiry",
		`INSERT INTO dedupe_seen (ns, g, k, sha1) VALUES (1, 7, 2, NULL) ON CONFLICT DO NOTHING`:                                                           "",
		`SELECT n FROM frontier_meta WHERE name = 'seq'`:                                                                                                   "PRIMARY KEY",
		`SELECT crawl FROM frontier_queues WHERE id = 3`:                                                                                                   "INTEGER PRIMARY KEY",
		`UPDATE frontier_entries SET state = 1 WHERE id = (SELECT id FROM frontier_entries WHERE queue = 1 AND state = 0 ORDER BY prio DESC, ord LIMIT 1)`: "frontier_entries_pop",
		`SELECT id, lease, queue FROM frontier_entries WHERE state = 1 AND consumer = 'c' AND consumer != ''`:                                              "COVERING INDEX frontier_entries_held",
		`SELECT queue, count(*) FROM frontier_entries WHERE state = 1 AND consumer = 'c' AND consumer != '' GROUP BY queue`:                                "COVERING INDEX frontier_entries_held",
		`SELECT count(*) FROM frontier_entries WHERE state = 1 AND consumer = 'c' AND consumer != ''`:                                                      "COVERING INDEX frontier_entries_held",
	} {
		rows, err := f.db.Query("EXPLAIN QUERY PLAN " + q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			rows.Scan(&id, &parent, &notused, &detail)
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if strings.Contains(p, "SCAN frontier_entries") || strings.Contains(p, "USE TEMP B-TREE") || !strings.Contains(p, want) {
			t.Errorf("%s\n  plan: %s (want %q, no scan of frontier_entries, no temp b-tree)", q, p, want)
		}
	}
}

// TestMigrateV1: a file of schema version 1 (before consumers) opens, is
// brought to version 2, and keeps its queue.
func TestMigrateV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	f, err := OpenSQLite(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"))
	ls := pop(t, f, 1, t0)
	for _, q := range []string{
		`DROP INDEX frontier_entries_held`,
		`ALTER TABLE frontier_entries DROP COLUMN consumer`,
		`ALTER TABLE frontier_entries DROP COLUMN abandons`,
		`DROP TABLE frontier_consumers`,
		`UPDATE frontier_meta SET n = 1 WHERE name = 'schema'`,
	} {
		if _, err := f.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	f.Close()
	f, err = OpenSQLite(ctx, path, Options{})
	if err != nil {
		t.Fatalf("open a version 1 file: %v", err)
	}
	defer f.Close()
	var v int
	f.db.QueryRow(`SELECT n FROM frontier_meta WHERE name = 'schema'`).Scan(&v)
	if v != schemaVersion {
		t.Errorf("schema version %d after the migration", v)
	}
	indexes := indexNames(t, f, `name LIKE 'frontier_entries_%'`)
	if want := []string{"frontier_entries_held", "frontier_entries_lease", "frontier_entries_pop"}; !slices.Equal(indexes, want) {
		t.Errorf("indexes %q after the migration, want %q", indexes, want)
	}
	wantCounts(t, f, 1, 1, 0)
	if a, err := f.Ack(ctx, leases(ls), t0); err != nil || a.Acked != 1 {
		t.Errorf("ack of a lease from before the migration: %+v, %v", a, err)
	}
	c, err := f.Join(ctx, elsewhere, t0)
	if err != nil {
		t.Fatal(err)
	}
	if r := popAs(t, f, c, 5, 0, t0); len(r.Leased) != 1 || r.Held != 1 {
		t.Errorf("pop as a consumer after the migration: %+v", r)
	}
}

// TestCrawlMetaOldFile: a file made before crawl metadata existed (no
// frontier_crawl_meta table) reads as empty metadata and gets the table on
// the first SetCrawlMeta.
func TestCrawlMetaOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	f, err := OpenSQLite(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.db.Exec(`DROP TABLE frontier_crawl_meta`); err != nil {
		t.Fatal(err)
	}
	if m, err := f.CrawlMeta(ctx, "shop"); err != nil || len(m) != 0 {
		t.Fatalf("CrawlMeta on an old file = %v, %v", m, err)
	}
	if m, err := f.SetCrawlMeta(ctx, "shop", map[string]string{"k": "v"}, false); err != nil || m["k"] != "v" {
		t.Fatalf("SetCrawlMeta on an old file = %v, %v", m, err)
	}
	g, err := OpenSQLite(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if m, err := g.CrawlMeta(ctx, "shop"); err != nil || m["k"] != "v" {
		t.Fatalf("CrawlMeta from another connection = %v, %v", m, err)
	}
}

// TestSQLiteFailOldFile: a file made before frontier_dead_reasons dumps
// and acks its dead requests as before, and gets the table from its first
// fail; the reason goes with its request when it is acked.
func TestSQLiteFailOldFile(t *testing.T) {
	f := openSQLite(t, t.TempDir()+"/old.db", Options{MaxLeaseExpiries: 1})
	if _, err := f.db.Exec(`DROP TABLE frontier_dead_reasons`); err != nil {
		t.Fatal(err)
	}
	push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"))
	ls := leaseOf(t, pop(t, f, 2, t0))
	now := t0.Add(time.Hour)
	if r, _ := f.Reclaim(ctx, now); r.DeadLettered != 2 {
		t.Fatalf("Reclaim = %+v", r)
	}
	if d := dumpAll(t, f); len(d) != 2 || d["http://a.test/1"].Reason != reasonDeadLetter {
		t.Fatalf("Dump without the table = %+v", d)
	}
	if r := apply(t, f, Batch{Acks: []string{ls["http://a.test/1"]}}, now); r.Acks.Acked != 1 {
		t.Fatalf("late ack without the table = %+v", r)
	}
	push(t, f, now, req(t, "http://a.test/3"))
	l3 := pop(t, f, 1, now)
	if r := apply(t, f, Batch{Fails: []Fail{{Lease: l3[0].Lease, Reason: "too_large"}}}, now); r.Failed != 1 {
		t.Fatalf("fail = %+v", r)
	}
	if d := dumpAll(t, f); d["http://a.test/3"].Reason != "too_large" || d["http://a.test/2"].Reason != reasonDeadLetter {
		t.Errorf("Dump = %+v", d)
	}
	apply(t, f, Batch{Acks: leases(l3)}, now)
	var n int
	if err := f.db.QueryRow(`SELECT count(*) FROM frontier_dead_reasons`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d reasons left after the ack (%v)", n, err)
	}
}

// TestHeldIndexReplacesConsumerIndex: a file made when pop counted a
// consumer's requests through frontier_entries_consumer opens with
// frontier_entries_held in its place.
func TestHeldIndexReplacesConsumerIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := openSQLite(t, path, Options{})
	for _, q := range []string{
		`DROP INDEX frontier_entries_held`,
		`CREATE INDEX frontier_entries_consumer ON frontier_entries (consumer) WHERE state = 1 AND consumer != ''`,
	} {
		if _, err := f.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	f.Close()
	f = openSQLite(t, path, Options{})
	if names := indexNames(t, f, `name IN ('frontier_entries_held', 'frontier_entries_consumer')`); !slices.Equal(names, []string{"frontier_entries_held"}) {
		t.Errorf("indexes %q, want frontier_entries_held alone", names)
	}
}

// indexNames lists, in order, the names of f's indexes that match where.
func indexNames(t *testing.T, f *SQLite, where string) []string {
	t.Helper()
	rows, err := f.db.Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND ` + where + ` ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}
