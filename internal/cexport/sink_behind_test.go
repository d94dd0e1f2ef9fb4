package cexport

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/pgtest"
)

// writeBehindInput is 3 batches and a half of items (batchRows each), one
// rejected by a CHECK in the first batch, a new field from the middle of
// the second (--alter changes the table while a batch is in flight), each
// key twice across batches (the later wins), and acks between.
func writeBehindInput() (string, int) {
	var b strings.Builder
	n := batchRows*3 + batchRows/2
	for i := range n {
		k := i % (n - 100) // the last 100 items update the first 100 rows
		extra := ""
		if i >= batchRows+batchRows/2 {
			extra = fmt.Sprintf(`,"late":%d`, i)
		}
		price := i
		if i == 7 {
			price = -1 // the CHECK rejects it
		}
		fmt.Fprintf(&b, `{"url":"u%d","price":%d%s}`+"\n", k, price, extra)
		if i%997 == 0 {
			fmt.Fprintf(&b, `{"kind":"ack","lease":"L%d"}`+"\n", i)
		}
	}
	return b.String(), n - 100
}

// TestWriteBehind: batches written in the background while the next one
// fills lose nothing, keep the order of updates, report rejections and
// take columns added mid-run; every ack is passed on.
func TestWriteBehind(t *testing.T) {
	in, rows := writeBehindInput()
	acks := strings.Count(in, `"kind":"ack"`)
	check := func(t *testing.T, code int, stdout, stderr string, query func(string) []string) {
		t.Helper()
		if code != 3 || !strings.Contains(stderr, "<stdin>:9: rejected by the database") {
			t.Fatalf("exit %d, want 3 (one row rejected); stderr:\n%s", code, stderr)
		}
		if got := strings.Count(stdout, `"kind":"ack"`); got != acks {
			t.Errorf("%d acks passed on, want %d", got, acks)
		}
		// (u7's first item was rejected; the last 100 items write it again)
		if got := query("SELECT count(*) FROM items"); got[0] != fmt.Sprint(rows) {
			t.Errorf("%s rows, want %d", got[0], rows)
		}
		// u0 was written first in batch 1, then by the last items.
		n := batchRows*3 + batchRows/2
		if got := query("SELECT price FROM items WHERE url = 'u0'"); got[0] != fmt.Sprint(n-100) {
			t.Errorf("u0's price %s, want %d (the later item)", got[0], n-100)
		}
		if got := query("SELECT count(*) FROM items WHERE late IS NOT NULL"); got[0] != fmt.Sprint(n-batchRows-batchRows/2) {
			t.Errorf("%s rows with the late field, want %d", got[0], n-batchRows-batchRows/2)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "items.db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("CREATE TABLE items (url TEXT PRIMARY KEY, price INTEGER CHECK (price >= 0))"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		code, stdout, stderr := runCexport(t, in, "-o", "sqlite:"+path+"?table=items", "--key", "url", "--alter")
		check(t, code, stdout, stderr, func(q string) []string { return sqliteRows(t, path, q) })
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.Start(t)
		pgExec(t, url, "CREATE TABLE items (url text PRIMARY KEY, price bigint CHECK (price >= 0))")
		code, stdout, stderr := runCexport(t, in, "-o", url+"?table=items", "--key", "url", "--alter")
		check(t, code, stdout, stderr, func(q string) []string { return pgRows(t, url, q) })
	})
}
