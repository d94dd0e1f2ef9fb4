package storage

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpenDBErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 500)), 0o644)
	_, err := OpenDB(ctx, junk, 0)
	if !errors.Is(err, ErrNotDatabase) || !strings.HasPrefix(err.Error(), "file is not a database (") {
		t.Errorf("junk file: %v", err)
	}
	if _, err := OpenDB(ctx, dir, 0); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := OpenDB(ctx, filepath.Join(dir, "no", "such", "dir", "x.db"), 0); err == nil {
		t.Error("a file in a missing directory opened")
	}
}

// TestCheckpointerBoundsWAL: writers never checkpoint themselves, yet the
// WAL does not grow without bound while they write without pause.
func TestCheckpointerBoundsWAL(t *testing.T) {
	old := restartPages
	restartPages = 200
	defer func() { restartPages = old }()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY) WITHOUT ROWID`); err != nil {
		t.Fatal(err)
	}
	keys := make([]int64, 3000)
	deadline := time.Now().Add(1500 * time.Millisecond)
	written := 0
	for time.Now().Before(deadline) {
		for i := range keys {
			keys[i] = rand.Int64()
		}
		if err := insertKeys(ctx, db, keys); err != nil {
			t.Fatal(err)
		}
		written++
	}
	var pages int
	db.QueryRow("PRAGMA page_count").Scan(&pages)
	// The WAL's length in frames (its file keeps its largest size).
	var busy, frames, copied int
	for try := 0; try < 50; try++ {
		if err := db.file.ckpt.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
			t.Fatal(err)
		}
		if busy == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d batches, database %d pages, WAL %d frames", written, pages, frames)
	// Each batch rewrites most of the database's pages: a WAL that never
	// restarted would hold about batches × pages frames.
	if limit := 4 * max(restartPages, pages); frames > limit || frames < 0 {
		t.Errorf("WAL grew to %d frames, more than %d", frames, limit)
	}
}

// insertKeys writes keys in one transaction, as a seen-set's batch does.
func insertKeys(ctx context.Context, db *DB, keys []int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO t (k) VALUES (?)`, k); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func TestCheckpointEvery(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		every   time.Duration
		written int
		want    time.Duration
	}{
		{100 * ms, 10, 200 * ms},    // little written: checkpoint less often
		{800 * ms, 10, time.Second}, // never more than a second apart
		{time.Second, 0, time.Second},
		{time.Second, 5000, 100 * ms}, // much written: at once as often as can be
		{200 * ms, 2048, 100 * ms},
		{100 * ms, 5000, 100 * ms}, // never more than ten a second
		{400 * ms, 1000, 400 * ms}, // about right: kept
		{400 * ms, -1, 400 * ms},   // the checkpoint failed: kept
	} {
		if got := checkpointEvery(c.every, c.written); got != c.want {
			t.Errorf("checkpointEvery(%v, %d) = %v, want %v", c.every, c.written, got, c.want)
		}
	}
}
