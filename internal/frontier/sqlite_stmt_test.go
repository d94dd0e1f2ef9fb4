package frontier

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestStmtCache: a statement runs unprepared the first time and prepared
// after; with a pool of one connection (nothing left to prepare on inside a
// transaction) writers and readers in parallel still never wait on each
// other for good.
func TestStmtCache(t *testing.T) {
	f := openSQLite(t, filepath.Join(t.TempDir(), "f.db"), Options{})
	f.db.SetMaxOpenConns(1)
	const held = `SELECT count(*) FROM frontier_entries WHERE state = 1 AND consumer = ? AND consumer != ''`
	c, err := f.Join(ctx, ThisMachine(), t0)
	if err != nil {
		t.Fatal(err)
	}
	push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"))
	prepared := func() bool {
		f.stmts.mu.Lock()
		defer f.stmts.mu.Unlock()
		_, ok := f.stmts.m[held]
		return ok
	}
	if prepared() {
		t.Fatal("prepared before its first use")
	}
	if _, err := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute, Consumer: c}, t0); err != nil {
		t.Fatal(err)
	}
	if !prepared() {
		t.Fatal("not prepared after its first use")
	}
	res, err := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute, Consumer: c}, t0)
	if err != nil || res.Held != 2 {
		t.Fatalf("second pop: held %d, %v", res.Held, err)
	}

	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				if i%2 == 0 {
					f.Push(ctx, []Entry{req(t, "http://b.test/"+string(rune('a'+i))+string(rune('a'+j)))}, t0)
				} else {
					f.Counts(ctx)
					f.Stats(ctx)
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writers and readers on one connection deadlocked")
	}
}
