package cexport

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/cli"
	_ "modernc.org/sqlite"
)

// runCexport runs cexport in this process and returns its exit status,
// stdout and stderr.
func runCexport(t *testing.T, in string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), append([]string{"-q"}, args...), strings.NewReader(in), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// sqliteRows returns the result of query on the SQLite file path, each
// value as text (NULL for null; SQLite's own text for numbers), rows as
// "a|b|c".
func sqliteRows(t *testing.T, path, query string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		s := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				s[i] = "NULL"
			case []byte:
				s[i] = string(v)
			case float64:
				s[i] = fmt.Sprintf("%gR", v) // R: stored as REAL
			default:
				s[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(s, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func wantRows(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSQLiteTableFromFirstItem(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	in := lines(
		`{"kind":"item","data":{"title":"Color TV","price":1200,"rating":4.5,"tags":["a","b"],"dims":{"w":1},"ok":true,"note":null,"exact":1.10}}`,
		`{"title":"Radio","price":12345678901234567890,"rating":3,"tags":[],"ok":false,"exact":"x"}`,
	)
	code, _, stderr := runCexport(t, in, "-o", "sqlite:"+path+"?table=books")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT name || ' ' || type FROM pragma_table_info('books')"),
		"title TEXT", "price INTEGER", "rating REAL", "tags TEXT", "dims TEXT", "ok INTEGER", "note TEXT", "exact REAL")
	wantRows(t, sqliteRows(t, path, "SELECT * FROM books ORDER BY rowid"),
		`Color TV|1200|4.5R|["a","b"]|{"w":1}|1|NULL|1.1R`,
		`Radio|1.2345678901234567e+19R|3R|[]|NULL|0|NULL|x`)
}

func TestSQLiteDefaultTableAndAbsolutePath(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	code, _, stderr := runCexport(t, `{"a":1}`+"\n", "-o", "sqlite://"+path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT a FROM items"), "1")
}

func TestSQLiteNewFieldNeedsAlter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	uri := "sqlite:" + path + "?table=books"
	in := lines(`{"title":"A"}`, `{"title":"B","color":"red"}`, `{"title":"C"}`)
	code, _, stderr := runCexport(t, in, "-o", uri)
	if code != cli.ExitPartial || !strings.Contains(stderr, `cexport: <stdin>:2: field "color" is not a column of table books (--alter adds it`) {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT * FROM books"), "A", "C")

	code, _, stderr = runCexport(t, in, "-o", uri, "--alter")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT * FROM books"), "A|NULL", "C|NULL", "A|NULL", "B|red", "C|NULL")
}

func TestSQLiteKeyUpserts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	uri := "sqlite:" + path + "?table=books"
	first := lines(`{"url":"u1","title":"A","price":1}`, `{"url":"u2","title":"B","price":2}`, `{"url":"u1","title":"A2","price":3}`)
	if code, _, stderr := runCexport(t, first, "-o", uri, "--key", "url"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT * FROM books ORDER BY url"), "u1|A2|3", "u2|B|2")
	wantRows(t, sqliteRows(t, path, "SELECT name FROM pragma_index_list('books') WHERE \"unique\""), "books_key_url")

	// A re-crawl: rows are updated, a field an item lacks keeps its value.
	second := lines(`{"url":"u2","price":20}`, `{"url":"u3","title":"C","price":30}`)
	if code, _, stderr := runCexport(t, second, "-o", uri, "--key", "url"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT * FROM books ORDER BY url"), "u1|A2|3", "u2|B|20", "u3|C|30")

	// An item without the key is rejected.
	code, _, stderr := runCexport(t, lines(`{"title":"D"}`), "-o", uri, "--key", "url")
	if code != cli.ExitPartial || !strings.Contains(stderr, `<stdin>:1: key field "url" (--key) is missing or null`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// A key that is not a column.
	code, _, stderr = runCexport(t, lines(`{"title":"D"}`), "-o", uri, "--key", "isbn")
	if code != cli.ExitFailure || !strings.Contains(stderr, `--key isbn: table books has no column "isbn"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestSQLiteOverwriteEmptiesTheTable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	uri := "sqlite:" + path + "?table=books"
	runCexport(t, lines(`{"a":1}`, `{"a":2}`), "-o", uri)
	runCexport(t, lines(`{"a":3}`), "-o", uri)
	wantRows(t, sqliteRows(t, path, "SELECT a FROM books"), "1", "2", "3")
	if code, _, stderr := runCexport(t, lines(`{"a":4}`), "-O", uri); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT a FROM books"), "4")
}

func TestSQLiteRejectedRowsAreReported(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, price REAL CHECK (price >= 0))`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	in := lines(`{"title":"A","price":1}`, `{"title":null,"price":2}`, `{"title":"C","price":-1}`, `{"title":"D"}`)
	code, _, stderr := runCexport(t, in, "-o", "sqlite:"+path+"?table=books")
	if code != cli.ExitPartial {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"cexport: <stdin>:2: rejected by the database: constraint failed: NOT NULL constraint failed: books.title",
		"cexport: <stdin>:3: rejected by the database: constraint failed: CHECK constraint failed",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	wantRows(t, sqliteRows(t, path, "SELECT * FROM books"), "1|A|1R", "2|D|NULL")
}

// TestSQLiteAckAfterCommit pins the crawl loop's guarantee for a table: an
// ack reaches stdout only once the rows of the items read before it are
// committed (another connection sees them).
func TestSQLiteAckAfterCommit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	in := newChunkReader()
	rowsAtAck := make(chan []string, 1)
	var once sync.Once
	stdout := &watchedBuffer{onWrite: func(s string) {
		if strings.Contains(s, `"kind":"ack"`) {
			once.Do(func() { rowsAtAck <- sqliteRows(t, path, "SELECT title FROM items") })
		}
	}}
	var stderr bytes.Buffer
	code := runAsync(context.Background(), []string{"-o", "sqlite:" + path}, in, stdout, &stderr)
	in.chunks <- lines(`{"kind":"item","data":{"title":"one"}}`, `{"kind":"request","url":"https://a.example/2"}`,
		`{"kind":"item","data":{"title":"two"}}`, `{"kind":"ack","lease":"L1"}`)
	wantRows(t, wait(t, rowsAtAck, "the ack on stdout"), "one", "two")
	close(in.chunks)
	if c := wait(t, code, "Run to return"); c != 0 {
		t.Fatalf("exit %d; stderr:\n%s", c, &stderr)
	}
}

func TestDatabaseUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "sqlite:x.db", "-f", "csv"}, "--format csv: -o sqlite:x.db is a database table, which has no format"},
		{[]string{"-o", "sqlite:?table=x"}, "-o sqlite:?table=x: no database file"},
		{[]string{"-o", "sqlite:x.db?tabel=x"}, `unknown parameter "tabel"`},
		{[]string{"-o", "items.csv", "--key", "url"}, "--key needs a database output"},
		{[]string{"-o", "items.csv", "--alter"}, "--alter needs a database output"},
		{[]string{"-o", "sqlite:x.db", "--key", "a,a"}, `--key: field "a" is named twice`},
		{[]string{"-o", "postgres://u:secret@127.0.0.1:1/db?table=" + strings.Repeat("t", 64)}, "-o postgres://u:xxxxx@127.0.0.1:1/db?table=tttt"},
	} {
		code, _, stderr := runCexport(t, "", tc.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "secret") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestKeyIndexName: the --key index is named NAME_key_FIELD; a name longer
// than the 63 bytes an identifier may have is cut at a character (a cut
// inside one made PostgreSQL refuse the index: invalid byte sequence) and
// made unique to its key, so another --key on a table with a long name gets
// its own index (the cut name was the old index's, and CREATE INDEX IF NOT
// EXISTS made none: every upsert failed, no unique constraint matching).
func TestKeyIndexName(t *testing.T) {
	t.Parallel()
	long := "products_from_the_shop_front_page_crawled_every_night_by_cron"
	for _, tc := range []struct {
		table string
		key   []string
		want  string // "" for any name that fits
	}{
		{"books", []string{"url"}, "books_key_url"},
		{"books", []string{"sku", "EU"}, "books_key_sku_EU"},
		{"товары_интернет_магазина", []string{"адрес_страницы"}, ""},
		{long, []string{"url"}, ""},
		{long, []string{"sku"}, ""},
		{long, []string{"url", "sku"}, ""},
	} {
		got := keyIndexName(tc.table, tc.key)
		if tc.want != "" && got != tc.want {
			t.Errorf("keyIndexName(%q, %q) = %q, want %q", tc.table, tc.key, got, tc.want)
		}
		if len(got) > maxIdent || !utf8.ValidString(got) {
			t.Errorf("keyIndexName(%q, %q) = %q: %d bytes, valid UTF-8 %v", tc.table, tc.key, got, len(got), utf8.ValidString(got))
		}
	}
	if a, b := keyIndexName(long, []string{"url"}), keyIndexName(long, []string{"sku"}); a == b {
		t.Errorf("keys url and sku of table %s: both indexes named %q", long, a)
	}
}

// TestSQLiteKeyOnATableWithALongName: a table whose name leaves no room for
// the key in the index's name takes one --key, then another.
func TestSQLiteKeyOnATableWithALongName(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	uri := "sqlite:" + path + "?table=products_from_the_shop_front_page_crawled_every_night_by_cron"
	if code, _, stderr := runCexport(t, lines(`{"url":"u1","sku":"s1","p":1}`), "-o", uri, "--key", "url"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCexport(t, lines(`{"url":"u2","sku":"s1","p":2}`), "-o", uri, "--key", "sku"); code != 0 {
		t.Fatalf("--key sku: exit %d: %s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT * FROM products_from_the_shop_front_page_crawled_every_night_by_cron"), "u2|s1|2")
}
