package cexport

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/record"
)

// TestItemDigest: the digest of an item does not depend on the order of
// its fields or white space, nor, with --change-fields, on the change
// fields (the export replaces them); a value that differs changes it. An
// item's own fields of those names count when they are exported as they
// are: a change of its "round" (a bout's, a funding round's) was taken for
// no change, and --changed-only dropped the item.
func TestItemDigest(t *testing.T) {
	fields := func(raw string) []record.Field {
		f, err := record.Fields([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, changeFields := range []bool{false, true} {
		base := itemDigest(fields(`{"url":"u","price":"1.00","tags":["a","b"]}`), changeFields, 1)
		for _, c := range []struct {
			raw  string
			same bool
		}{
			{`{"price":"1.00","url":"u","tags":["a","b"]}`, true},
			{`{"url":"u", "price":"1.00", "tags":[ "a", "b" ]}`, true},
			{`{"url":"u","price":"1.00","tags":["a","b"],"first_seen":"x","changed_at":"y"}`, changeFields},
			{`{"url":"u","price":"1.00","tags":["a","b"],"round":2}`, changeFields},
			{`{"url":"u","price":"1.01","tags":["a","b"]}`, false},
			{`{"url":"u","price":1.00,"tags":["a","b"]}`, false},
			{`{"url":"u","price":"1.00","tags":["b","a"]}`, false},
			{`{"url":"u","price":"1.00"}`, false},
			{`{"url":"u","price":"1.00","tags":["a","b"],"new":null}`, false},
		} {
			if got := itemDigest(fields(c.raw), changeFields, 1) == base; got != c.same {
				t.Errorf("--change-fields %v: %s: same digest %v, want %v", changeFields, c.raw, got, c.same)
			}
		}
	}
}

// TestChangeFieldsKeepTheItemsRound: --change-fields replaces an item's
// own "round" with the crawl's only when the record has one; without, the
// item's round is data, kept and compared (it was dropped from the export,
// and its changes went unseen).
func TestChangeFieldsKeepTheItemsRound(t *testing.T) {
	f, err := record.Fields([]byte(`{"bout":"A vs B","round":"final","first_seen":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		round int
		want  string
	}{
		{0, `bout="A vs B" round="final" first_seen="1" last_seen="2" changed_at="3"`},
		{4, `bout="A vs B" first_seen="1" last_seen="2" changed_at="3" round=4`},
	} {
		var got []string
		for _, f := range withChangeFields(f, "1", "2", "3", c.round) {
			got = append(got, f.Key+"="+string(f.Value))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("round %d: %s, want %s", c.round, g, c.want)
		}
	}
	g, err := record.Fields([]byte(`{"bout":"A vs B","round":"semi","first_seen":"y"}`))
	if err != nil {
		t.Fatal(err)
	}
	if itemDigest(f, true, 0) == itemDigest(g, true, 0) {
		t.Error(`outside a crawl's rounds, "round" changed from "final" to "semi": same digest`)
	}
	if itemDigest(f, true, 4) != itemDigest(g, true, 4) {
		t.Error(`in round 4, the item's own "round" (replaced) changed the digest`)
	}
}

// TestItemKey: the key is the key fields' values, compacted; an item
// without one is an error naming it.
func TestItemKey(t *testing.T) {
	f, _ := record.Fields([]byte(`{"url":"u","id": 7,"x":{"a": 1}}`))
	for _, c := range []struct {
		key     []string
		want    string
		wantErr bool
	}{
		{[]string{"url"}, `["u"]`, false},
		{[]string{"url", "id"}, `["u",7]`, false},
		{[]string{"x"}, `[{"a":1}]`, false},
		{[]string{"nope"}, "", true},
	} {
		got, err := itemKey(f, c.key)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("itemKey(%v) = %q, %v", c.key, got, err)
		}
	}
}

// TestChangedOnlyRejectedRowIsNotSeen: an item the table rejects was not
// written, so the change state must not take it for written: it was, and
// the next run (with --alter, or once the table takes it) dropped it as
// unchanged, never to be written until it changed. Rejected before the
// batch (a field that is not a column) and by the database (a CHECK,
// in the batch written behind, or at the end).
func TestChangedOnlyRejectedRowIsNotSeen(t *testing.T) {
	t.Parallel()
	t.Run("not a column", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "items.db")
		uri := "sqlite:" + path + "?table=t"
		in := lines(`{"url":"u1","p":1}`, `{"url":"u2","p":2,"color":"red"}`, `{"url":"u2","p":2,"color":"red"}`)
		if code, _, stderr := runCexport(t, in, "-o", uri, "--key", "url", "--changed-only"); code != cli.ExitPartial {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if code, _, stderr := runCexport(t, in, "-o", uri, "--key", "url", "--changed-only", "--alter"); code != 0 {
			t.Fatalf("--alter: exit %d: %s", code, stderr)
		}
		wantRows(t, sqliteRows(t, path, "SELECT * FROM t ORDER BY url"), "u1|1|NULL", "u2|2|red")
	})
	t.Run("a constraint", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "items.db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE t (url TEXT PRIMARY KEY, p INTEGER CHECK (p < 10))`); err != nil {
			t.Fatal(err)
		}
		uri := "sqlite:" + path + "?table=t"
		var in strings.Builder
		for i := range batchRows + 10 { // a batch written behind, then the last one
			p := i % 9
			if i == 7 || i == batchRows+5 {
				p = 10
			}
			fmt.Fprintf(&in, `{"url":"u%d","p":%d}`+"\n", i, p)
		}
		if code, _, stderr := runCexport(t, in.String(), "-o", uri, "--key", "url", "--changed-only"); code != cli.ExitPartial || strings.Count(stderr, "rejected by the database") != 2 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// The table is made to take them (a new one without the CHECK).
		if _, err := db.Exec(`ALTER TABLE t RENAME TO old; CREATE TABLE t (url TEXT PRIMARY KEY, p INTEGER); INSERT INTO t SELECT * FROM old; DROP TABLE old`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		code, _, stderr := runCexport(t, in.String(), "-o", uri, "--key", "url", "--changed-only")
		if code != 0 {
			t.Fatalf("second run: exit %d: %s", code, stderr)
		}
		wantRows(t, sqliteRows(t, path, "SELECT url, p FROM t WHERE p = 10 ORDER BY url"), fmt.Sprintf("u%d|10", batchRows+5), "u7|10")
	})
}

// TestChangedOnlyKeyNamesTheExportedField: --key names a field as it is
// exported, as the table's key column does: renamed by --fields, or a
// dotted column of --flatten. Change tracking took only the item's own
// names, so into a table with the key renamed no --key worked (the
// tracker wanted url, the table link: every item rejected).
func TestChangedOnlyKeyNamesTheExportedField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, out string
		args      []string
		in        []string
	}{
		{"table, --fields renames the key", "sqlite:items.db?table=t", []string{"--fields", "url:link,p", "--key", "link"},
			[]string{`{"url":"u1","p":1}`, `{"url":"u2","p":2}`}},
		{"file, --fields renames the key", "items.jsonl", []string{"--fields", "url:link,p", "--key", "link"},
			[]string{`{"url":"u1","p":1}`, `{"url":"u2","p":2}`}},
		{"file, the item's own name", "items.jsonl", []string{"--fields", "url:link,p", "--key", "url"},
			[]string{`{"url":"u1","p":1}`, `{"url":"u2","p":2}`}},
		{"csv, --flatten's dotted column", "items.csv", []string{"--flatten", "--key", "id.sku"},
			[]string{`{"id":{"sku":"A"},"p":1}`, `{"id":{"sku":"B"},"p":2}`}},
		{"csv, --flatten's column renamed", "items.csv", []string{"--flatten", "--fields", "id.sku:sku,p", "--key", "sku"},
			[]string{`{"id":{"sku":"A"},"p":1}`, `{"id":{"sku":"B"},"p":2}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := strings.Replace(tc.out, "items", filepath.Join(dir, "items"), 1)
			args := append([]string{"-o", out, "--changed-only"}, tc.args...)
			first := lines(tc.in...)
			if code, _, stderr := runCexport(t, first, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			// The same again, and one changed: one item out.
			again := lines(tc.in[0], strings.Replace(tc.in[1], `"p":2`, `"p":3`, 1))
			args = append(args, "--stats", filepath.Join(dir, "stats.json"))
			if code, _, stderr := runCexport(t, again, args...); code != 0 {
				t.Fatalf("second run: exit %d: %s", code, stderr)
			}
			stats, _ := os.ReadFile(filepath.Join(dir, "stats.json"))
			if !strings.Contains(string(stats), `"out": 1,`) || !strings.Contains(string(stats), `"unchanged": 1`) {
				t.Fatalf("second run: want 1 out, 1 unchanged: %s", stats)
			}
		})
	}
}

// TestHistoryFollowsFields: TABLE_history has the item as the table has it,
// the fields --fields chooses under their names, with the change fields.
// It had every field of the item under its own name (a field left out on
// purpose too), and a gone row's key under --fields's name beside them.
func TestHistoryFollowsFields(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.db")
	args := []string{"-o", "sqlite:" + path + "?table=t", "--fields", "url:link,p", "--key", "link", "--history"}
	round1 := lines(`{"kind":"item","data":{"url":"u1","p":1,"secret":"s"},"round":1,"fetched_at":"2026-01-01T00:00:00Z"}`,
		`{"kind":"item","data":{"url":"u2","p":2,"secret":"s"},"round":1,"fetched_at":"2026-01-01T00:00:00Z"}`)
	round2 := lines(`{"kind":"item","data":{"url":"u1","p":3,"secret":"s"},"round":2,"fetched_at":"2026-01-02T00:00:00Z"}`)
	for _, in := range []string{round1, round2} {
		if code, _, stderr := runCexport(t, in, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	if code, _, stderr := runCexport(t, "", append(args, "--gone", "2")...); code != 0 {
		t.Fatalf("--gone: exit %d: %s", code, stderr)
	}
	wantRows(t, sqliteRows(t, path, "SELECT group_concat(name, ',') FROM pragma_table_info('t_history')"),
		"link,p,first_seen,last_seen,changed_at,round,change")
	wantRows(t, sqliteRows(t, path, "SELECT link, p, round, change FROM t_history ORDER BY rowid"),
		"u1|1|1|new", "u2|2|1|new", "u1|3|2|changed", "u2|NULL|2|gone")
}

// TestChangedOnlyComparesTheExportedFields: with --fields, an item is
// changed when a field it is exported with differs: a field left out (a
// time it was scraped) made every item changed, and the export got the
// same row again on every run.
func TestChangedOnlyComparesTheExportedFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"-o", filepath.Join(dir, "items.csv"), "--fields", "url,price:p", "--changed-only", "--key", "url", "--stats", filepath.Join(dir, "stats.json")}
	for i, tc := range []struct {
		in, counts string
	}{
		{`{"url":"u1","price":1,"scraped_at":"2026-01-01"}`, `"new": 1`},
		{`{"url":"u1","price":1,"scraped_at":"2026-01-02"}`, `"unchanged": 1`},
		{`{"url":"u1","price":2,"scraped_at":"2026-01-03"}`, `"changed": 1`},
	} {
		if code, _, stderr := runCexport(t, lines(tc.in), args...); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i+1, code, stderr)
		}
		if stats, _ := os.ReadFile(filepath.Join(dir, "stats.json")); !strings.Contains(string(stats), tc.counts) {
			t.Errorf("run %d: want %s: %s", i+1, tc.counts, stats)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "items.csv")); string(b) != "url,p\nu1,1\nu1,2\n" {
		t.Errorf("items.csv:\n%s", b)
	}
}
