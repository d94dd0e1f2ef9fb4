package cexport

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// pgRows returns the result of query on the server at url, each value as
// PostgreSQL's text for it (NULL for null), rows as "a|b|c".
func pgRows(t *testing.T, url, query string) []string {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s []string
		for _, v := range rows.RawValues() {
			if v == nil {
				s = append(s, "NULL")
			} else {
				s = append(s, string(v))
			}
		}
		out = append(out, strings.Join(s, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

func pgExec(t *testing.T, url, sql string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestPostgres runs the PostgreSQL sink's tests against one real server.
func TestPostgres(t *testing.T) {
	url := pgtest.Start(t)
	uri := func(table string) string { return url + "?table=" + table }

	t.Run("table from first item", func(t *testing.T) {
		in := lines(
			`{"kind":"item","data":{"title":"Color TV","price":1200,"rating":4.5,"tags":["a","b"],"dims":{"w":1},"ok":true,"note":null,"exact":1.10}}`,
			`{"title":"Radio","price":7,"rating":3,"tags":[],"ok":false,"exact":2,"dims":"flat"}`,
		)
		code, _, stderr := runCexport(t, in, "-o", uri("books1"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		wantRows(t, pgRows(t, url, `SELECT attname || ' ' || format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'books1'::regclass AND attnum > 0 ORDER BY attnum`),
			"title text", "price bigint", "rating double precision", "tags jsonb", "dims jsonb", "ok boolean", "note text", "exact double precision")
		wantRows(t, pgRows(t, url, "SELECT * FROM books1 ORDER BY title"),
			`Color TV|1200|4.5|["a", "b"]|{"w": 1}|t|NULL|1.1`,
			`Radio|7|3|[]|"flat"|f|NULL|2`)
	})

	t.Run("schema and existing types", func(t *testing.T) {
		pgExec(t, url, `CREATE SCHEMA shop; CREATE TABLE shop.books (isbn text PRIMARY KEY, price numeric(10,2), seen timestamptz, title varchar(5), n integer)`)
		in := lines(`{"isbn":"1","price":1.10,"seen":"2026-01-02T03:04:05Z","title":"abc","n":1}`,
			`{"isbn":"2","price":"x"}`,
			`{"isbn":"3","title":"too long"}`,
			`{"isbn":"4","n":1.5}`,
			`{"isbn":"5","seen":"yesterday-ish"}`,
			`{"isbn":"1","price":2.25}`)
		code, _, stderr := runCexport(t, in, "-o", uri("shop.books"), "--key", "isbn")
		if code != cli.ExitPartial {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{
			`cexport: <stdin>:2: rejected by the database: field "price": invalid input syntax for type numeric: "x" (SQLSTATE 22P02)`,
			`cexport: <stdin>:3: rejected by the database: value too long for type character varying(5) (SQLSTATE 22001)`,
			`cexport: <stdin>:4: rejected by the database: field "n": invalid input syntax for type integer: "1.5" (SQLSTATE 22P02)`,
			`cexport: <stdin>:5: rejected by the database: field "seen": invalid input syntax for type timestamp with time zone: "yesterday-ish"`,
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		wantRows(t, pgRows(t, url, "SELECT isbn, price, seen AT TIME ZONE 'UTC', title, n FROM shop.books ORDER BY isbn"), "1|2.25|2026-01-02 03:04:05|abc|1")
	})

	t.Run("key upserts", func(t *testing.T) {
		u := uri("books2")
		// Within one batch the same key twice: the last one wins.
		first := lines(`{"url":"u1","title":"A","price":1}`, `{"url":"u2","title":"B","price":2}`, `{"url":"u1","title":"A2","price":3}`)
		if code, _, stderr := runCexport(t, first, "-o", u, "--key", "url"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		wantRows(t, pgRows(t, url, "SELECT * FROM books2 ORDER BY url"), "u1|A2|3", "u2|B|2")
		second := lines(`{"url":"u2","price":20}`, `{"url":"u3","title":"C","price":30}`, `{"url":"u2","title":"B2"}`)
		if code, _, stderr := runCexport(t, second, "-o", u, "--key", "url"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		wantRows(t, pgRows(t, url, "SELECT * FROM books2 ORDER BY url"), "u1|A2|3", "u2|B2|20", "u3|C|30")
		wantRows(t, pgRows(t, url, "SELECT indexname FROM pg_indexes WHERE tablename = 'books2'"), "books2_key_url")
	})

	t.Run("key on a table whose name is long", func(t *testing.T) {
		// The index name was cut inside a character: PostgreSQL refused it
		// (invalid byte sequence for encoding "UTF8") and the run failed.
		u := uri("товары_интернет_магазина")
		in := lines(`{"адрес_страницы":"u1","цена":1}`, `{"адрес_страницы":"u1","цена":2}`)
		if code, _, stderr := runCexport(t, in, "-o", u, "--key", "адрес_страницы"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		wantRows(t, pgRows(t, url, "SELECT * FROM товары_интернет_магазина"), "u1|2")
		// Another key: its index is another one.
		if code, _, stderr := runCexport(t, lines(`{"адрес_страницы":"u2","цена":2}`), "-o", u, "--key", "цена"); code != 0 {
			t.Fatalf("--key цена: exit %d: %s", code, stderr)
		}
		wantRows(t, pgRows(t, url, "SELECT * FROM товары_интернет_магазина"), "u2|2")
	})

	t.Run("alter and overwrite", func(t *testing.T) {
		u := uri("books3")
		in := lines(`{"title":"A"}`, `{"title":"B","color":"red","n":2}`)
		code, _, stderr := runCexport(t, in, "-o", u)
		if code != cli.ExitPartial || !strings.Contains(stderr, `<stdin>:2: field "color" is not a column of table books3`) {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if code, _, stderr := runCexport(t, in, "-o", u, "--alter"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		wantRows(t, pgRows(t, url, "SELECT * FROM books3 ORDER BY title, color NULLS FIRST"), "A|NULL|NULL", "A|NULL|NULL", "B|red|2")
		if code, _, stderr := runCexport(t, lines(`{"title":"C"}`), "-O", u); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		wantRows(t, pgRows(t, url, "SELECT * FROM books3"), "C|NULL|NULL")
	})

	t.Run("constraint rejects a row, the rest goes on", func(t *testing.T) {
		pgExec(t, url, `CREATE TABLE books4 (title text NOT NULL, price bigint CHECK (price >= 0))`)
		var in strings.Builder
		for i := range 12000 { // more than two batches
			switch i {
			case 100:
				in.WriteString(`{"title":null,"price":1}` + "\n")
			case 7000:
				in.WriteString(`{"title":"neg","price":-1}` + "\n")
			default:
				fmt.Fprintf(&in, `{"title":"t%d","price":%d}`+"\n", i, i)
			}
		}
		code, _, stderr := runCexport(t, in.String(), "-o", uri("books4"))
		if code != cli.ExitPartial {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{
			`cexport: <stdin>:101: rejected by the database: field "title": null value in column "title" of relation "books4" violates not-null constraint`,
			`cexport: <stdin>:7001: rejected by the database: new row for relation "books4" violates check constraint "books4_price_check"`,
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		wantRows(t, pgRows(t, url, "SELECT count(*), sum(price) FROM books4"), fmt.Sprintf("11998|%d", 11999*12000/2-100-7000))
	})

	t.Run("ack after commit", func(t *testing.T) {
		in := newChunkReader()
		rowsAtAck := make(chan []string, 1)
		var once sync.Once
		stdout := &watchedBuffer{onWrite: func(s string) {
			if strings.Contains(s, `"kind":"ack"`) {
				once.Do(func() { rowsAtAck <- pgRows(t, url, "SELECT title FROM books5 ORDER BY title") })
			}
		}}
		var stderr bytes.Buffer
		code := runAsync(context.Background(), []string{"-o", uri("books5")}, in, stdout, &stderr)
		in.chunks <- lines(`{"kind":"item","data":{"title":"one"}}`, `{"kind":"request","url":"https://a.example/2"}`,
			`{"kind":"item","data":{"title":"two"}}`, `{"kind":"ack","lease":"L1"}`)
		wantRows(t, wait(t, rowsAtAck, "the ack on stdout"), "one", "two")
		close(in.chunks)
		if c := wait(t, code, "Run to return"); c != 0 {
			t.Fatalf("exit %d; stderr:\n%s", c, &stderr)
		}
	})
}

// TestPostgresDown: a server that is not there is a clear error naming
// the tool and the server, exit status 1, before anything is read.
func TestPostgresDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	code, stdout, stderr := runCexport(t, lines(`{"a":1}`, `{"kind":"ack","lease":"L"}`),
		"-o", "postgres://crawler:secret@"+addr+"/shop?table=books")
	want := "cexport: postgres://crawler:xxxxx@" + addr + "/shop?table=books: cannot connect to the PostgreSQL server at " + addr +
		` (database "shop", user "crawler"): dial tcp ` + addr + ": connect: connection refused\n"
	if code != cli.ExitFailure || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "secret") || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant it to start with:\n%s", code, stdout, stderr, want)
	}
}
