package cexport

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage"
)

// TestGoneColumnAdded: a change state made before --gone gets its gone
// column, its rows kept, not gone.
func TestGoneColumnAdded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "items.jsonl.changes.db")
	db, err := storage.OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE cexport_changes (scope TEXT NOT NULL, key TEXT NOT NULL, digest BLOB NOT NULL,
		first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, changed_at TEXT NOT NULL, round INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (scope, key)) WITHOUT ROWID;
		INSERT INTO cexport_changes VALUES ('items.jsonl key=url', '["u1"]', x'00', 'a', 'b', 'c', 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	o := &Options{Output: "items.jsonl", Key: []string{"url"}, ChangedOnly: true, ChangesDB: path}
	c, err := openChanges(ctx, o, time.Now, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	row, ok, err := c.lookup(`["u1"]`)
	if err != nil || !ok || row.round != 1 || row.gone != 0 {
		t.Fatalf("lookup: %+v, %v, %v", row, ok, err)
	}
	gone, err := c.goneItems(2)
	if err != nil || len(gone) != 1 {
		t.Fatalf("goneItems(2) = %v, %v", gone, err)
	}
}
