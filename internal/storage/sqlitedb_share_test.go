package storage

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestOpenDBSharesAFile: the opens of one file in a process share one pool
// and one checkpointer (however the path is spelled), each Close lets go
// of its own, and the file closes with the last.
func TestOpenDBSharesAFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.db")
	a, err := OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	b, err := OpenDB(ctx, filepath.Join(dir, "link", ".", "x.db"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.DB != b.DB || a.file != b.file || a.file.refs != 2 {
		t.Fatalf("two opens of one file: pools %p and %p, %d references", a.DB, b.DB, a.file.refs)
	}
	other, err := OpenDB(ctx, path, time.Second) // another busy timeout: a pool of its own
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.DB == a.DB {
		t.Error("an open with another busy timeout shares the pool")
	}
	if _, err := a.Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil { // a second Close does nothing
		t.Fatal(err)
	}
	if _, err := b.Exec(`INSERT INTO t (k) VALUES (1)`); err != nil {
		t.Fatalf("the file closed with the first of its two opens: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.DB.Ping(); err == nil {
		t.Error("the pool is still open after the last Close")
	}
	openFiles.Lock()
	n := len(openFiles.m)
	openFiles.Unlock()
	if n != 1 { // other's
		t.Errorf("%d files open, want 1", n)
	}
	c, err := OpenDB(ctx, path, 0) // opened again, afresh
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var k int
	if err := c.QueryRow(`SELECT k FROM t`).Scan(&k); err != nil || k != 1 {
		t.Errorf("reopened: k = %d, %v", k, err)
	}
}

// TestLockWritesTakesTurns: the writers of one process on one file wait
// for each other in Go, so that none gives up on SQLite's busy timeout
// however long the others' transactions take.
func TestLockWritesTakesTurns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	const busy = 10 * time.Millisecond
	var dbs []*DB
	for range 4 {
		db, err := OpenDB(ctx, path, busy)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	if _, err := dbs[0].Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(dbs))
	for i, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				db.LockWrites()
				tx, err := db.BeginTx(ctx, nil)
				if err == nil {
					_, err = tx.Exec(`INSERT INTO t (k) VALUES (?)`, i*100+j)
					time.Sleep(2 * busy) // longer than the busy timeout
				}
				if err == nil {
					err = tx.Commit()
				} else if tx != nil {
					tx.Rollback()
				}
				db.UnlockWrites()
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	dbs[0].QueryRow(`SELECT count(*) FROM t`).Scan(&n)
	if n != 40 {
		t.Errorf("%d rows, want 40", n)
	}
}

// TestDataVersion: DataVersion changes with every commit that wrote,
// whether on this process's pool or on another's, and not with a read.
func TestDataVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := OpenDB(ctx, path, time.Second) // a pool of its own, as another process's
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	version := func() int64 {
		t.Helper()
		v, err := db.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := version()
	if _, err := db.Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	v1 := version()
	if v1 == v0 {
		t.Error("unchanged by a commit on the pool")
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if version() != v1 {
		t.Error("changed by a read")
	}
	if _, err := other.Exec(`INSERT INTO t (k) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if version() == v1 {
		t.Error("unchanged by another pool's commit")
	}
}

// TestOpenDBFileReplaced: a file removed (or replaced) while a DB holds it
// open is a new file to the next OpenDB, which gets a pool of its own; the
// old DB keeps its own until it closes.
func TestOpenDBFileReplaced(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	old, err := OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	fresh, err := OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if fresh.DB == old.DB {
		t.Fatal("the new file got the removed file's pool")
	}
	var n int
	if err := fresh.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 't'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the new file has the removed file's table: %d, %v", n, err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := OpenDB(ctx, path, 0) // shares the new file's pool still
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.DB != fresh.DB {
		t.Error("the old DB's Close dropped the new file's pool")
	}
}
