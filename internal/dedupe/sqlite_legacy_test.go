package dedupe

import (
	"context"
	"database/sql"
	"github.com/crawlutils/crawlutils/internal/storage"
	"path/filepath"
	"slices"
	"testing"
)

// TestSQLiteLegacyLayout: a file whose dedupe_seen predates groups (keyed
// by namespace and hash) keeps working as it is: the keys in it are still
// seen, whatever group a new key of the same request has, and new keys go
// in beside them.
func TestSQLiteLegacyLayout(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := storage.OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := RequestKey("GET", "http://a.test/1", "", false)
	for _, q := range []string{
		`CREATE TABLE dedupe_ns (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, expires_at INTEGER NOT NULL DEFAULT 0)`,
		`CREATE TABLE dedupe_seen (ns INTEGER NOT NULL, k INTEGER NOT NULL, sha1 BLOB, PRIMARY KEY (ns, k)) WITHOUT ROWID`,
		`INSERT INTO dedupe_ns (id, name) VALUES (1, 'c')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO dedupe_seen (ns, k) VALUES (1, ?)`, int64(old.Hash)); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := OpenSQLite(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.legacy {
		t.Fatal("the old layout was not recognized")
	}
	other, _ := RequestKey("GET", "http://a.test/2", "", false)
	got, err := s.SeenBatch(ctx, "c", []Key{old, other, other}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true, false}; !slices.Equal(got, want) {
		t.Errorf("SeenBatch = %v, want %v", got, want)
	}
	var hashes []uint64
	if err := s.Export(ctx, "c", t0, func(k Key) error {
		hashes = append(hashes, k.Hash)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(hashes)
	want := []uint64{old.Hash, other.Hash}
	slices.Sort(want)
	if !slices.Equal(hashes, want) {
		t.Errorf("Export = %x, want %x", hashes, want)
	}
}

// TestSQLiteGroupedLayout: a new file orders keys by group: the keys of one
// host sit together in dedupe_seen.
func TestSQLiteGroupedLayout(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "new.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.legacy {
		t.Fatal("a new file has the old layout")
	}
	var ks []Key
	for _, u := range []string{"http://a.test/1", "http://b.test/1", "http://a.test/2", "http://b.test/2", "http://a.test/3"} {
		k, _ := RequestKey("GET", u, "", false)
		ks = append(ks, k)
	}
	if _, err := s.SeenBatch(ctx, "c", ks, t0); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT g FROM dedupe_seen ORDER BY ns, g, k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var groups []int64
	for rows.Next() {
		var g sql.NullInt64
		rows.Scan(&g)
		groups = append(groups, g.Int64)
	}
	ga, gb := int64(GroupOf("a.test")), int64(GroupOf("b.test"))
	want := []int64{ga, ga, ga, gb, gb}
	if gb < ga {
		want = []int64{gb, gb, ga, ga, ga}
	}
	if !slices.Equal(groups, want) {
		t.Errorf("groups in key order = %v, want %v", groups, want)
	}
}
