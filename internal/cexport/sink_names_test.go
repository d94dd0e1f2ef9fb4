package cexport

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/pgtest"
	"github.com/crawlutils/crawlutils/internal/record"
)

// wideItem is an item with n fields f0000…, plus url.
func wideItem(url string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"url":%q`, url)
	for i := range n {
		fmt.Fprintf(&b, `,"f%04d":%d`, i, i)
	}
	return b.String() + "}"
}

// namesCase is one crawled field name a database cannot take as a column:
// the item that brings it is rejected (exit 3), the items around it are
// written. It used to fail the export (exit 1), rolling back the open
// batch, and every rerun failed the same way.
type namesCase struct {
	name   string
	items  []string
	stderr string
	rows   string // the url column, sorted
}

func namesCases(db string, maxCols int) []namesCase {
	cases := []namesCase{
		{"too many columns", []string{`{"url":"a","n":1}`, wideItem("wide", maxCols), `{"url":"c","n":3}`},
			fmt.Sprintf("over the %d a %s table may have", maxCols, db), "a|c"},
	}
	if db == "SQLite" {
		cases = append(cases,
			namesCase{"a field that differs from a column only in case", []string{`{"URL":"a","n":1}`, `{"url":"b","n":2}`, `{"URL":"c","n":3}`},
				`field "url" cannot be a column: the table has a column "URL", and SQLite column names ignore case`, "a|c"},
			namesCase{"two fields of one item that differ only in case", []string{`{"url":"a","n":1}`, `{"url":"b","Tag":2,"tag":2}`, `{"url":"c","n":3}`},
				`fields "Tag" and "tag" cannot both be columns: SQLite column names ignore case`, "a|c"})
	} else {
		cases = append(cases,
			namesCase{"a system column's name", []string{`{"url":"a","n":1}`, `{"url":"b","ctid":"x"}`, `{"url":"c","n":3}`},
				`field "ctid" cannot be a column: PostgreSQL keeps that name for a system column`, "a|c"},
			namesCase{"a name that differs only in case is another column", []string{`{"URL":"a","n":1}`, `{"url":"b","URL":"b"}`, `{"URL":"c","n":3}`},
				"", "a|b|c"},
			namesCase{"names that differ only in non-ASCII case are two columns", []string{`{"URL":"a","n":1}`, `{"URL":"b","Цена":"1","цена":"1 руб","K":1,"k":2}`, `{"URL":"c","n":3}`},
				"", "a|b|c"},
			namesCase{"a system column's name in another case is another column", []string{`{"URL":"a","n":1}`, `{"URL":"b","CTID":"x","Xmin":1}`, `{"URL":"c","n":3}`},
				"", "a|b|c"})
	}
	return cases
}

func TestSQLiteColumnNamesRejectTheItem(t *testing.T) {
	t.Parallel()
	for i, tc := range namesCases("SQLite", 2000) {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), fmt.Sprintf("n%d.db", i))
			code, _, stderr := runCexport(t, lines(tc.items...), "-o", "sqlite:"+path+"?table=items", "--alter")
			if code != cli.ExitPartial || !strings.Contains(stderr, "cexport: <stdin>:2: ") || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d, stderr:\n%s\nwant %q", code, cli.ExitPartial, stderr, tc.stderr)
			}
			col := "url"
			if strings.Contains(tc.items[0], `"URL"`) {
				col = "URL"
			}
			if got := strings.Join(sqliteRows(t, path, "SELECT "+col+" FROM items ORDER BY 1"), "|"); got != tc.rows {
				t.Errorf("rows %s, want %s", got, tc.rows)
			}
		})
	}
}

func TestPostgresColumnNamesRejectTheItem(t *testing.T) {
	url := pgtest.Start(t)
	for i, tc := range namesCases("PostgreSQL", 1600) {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			table := fmt.Sprintf("names%d", i)
			code, _, stderr := runCexport(t, lines(tc.items...), "-o", url+"?table="+table, "--alter")
			want := cli.ExitPartial
			if tc.stderr == "" {
				want = 0
			}
			if code != want || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d, stderr:\n%s\nwant %q", code, want, stderr, tc.stderr)
			}
			col := `url`
			if strings.Contains(tc.items[0], `"URL"`) {
				col = `"URL"`
			}
			if got := strings.Join(pgRows(t, url, "SELECT "+col+" FROM "+table+" ORDER BY 1"), "|"); got != tc.rows {
				t.Errorf("rows %s, want %s", got, tc.rows)
			}
		})
	}
}

// TestColumnRulesCase: SQLite folds the case of A-Z in a column name and
// nothing else, so names that differ only in non-ASCII case ("Цена" and
// "цена", "Über" and "über", the Kelvin sign and "k") are two columns;
// they used to be refused, folded as strings.ToLower folds all of
// Unicode. PostgreSQL's quoted names are case-sensitive, ASCII or not:
// only its system columns' exact names are refused.
func TestColumnRulesCase(t *testing.T) {
	t.Parallel()
	const kelvin = "\u212a"
	cases := []struct {
		name   string
		fields []string // of one item
		table  []string // the table's columns; nil: no table yet
		sqlite string   // SQLite's refusal, "" for none
		pg     string   // PostgreSQL's
	}{
		{"ASCII case, one item", []string{"Tag", "tag"}, nil, `fields "Tag" and "tag" cannot both be columns`, ""},
		{"ASCII case, a column", []string{"url"}, []string{"URL"}, `field "url" cannot be a column: the table has a column "URL"`, ""},
		{"the same name as a column", []string{"URL"}, []string{"URL"}, "", ""},
		{"Cyrillic case, one item", []string{"Цена", "цена"}, nil, "", ""},
		{"Cyrillic case, a column", []string{"цена"}, []string{"Цена"}, "", ""},
		{"Latin-1 case, one item", []string{"Über", "über"}, nil, "", ""},
		{"Latin-1 case, a column", []string{"über"}, []string{"Über"}, "", ""},
		{"the Kelvin sign and k", []string{kelvin, "k"}, nil, "", ""},
		{"the Kelvin sign and K", []string{kelvin, "K"}, nil, "", ""},
		{"the Kelvin sign beside a column k", []string{kelvin}, []string{"k"}, "", ""},
		{"ASCII case beside non-ASCII letters", []string{"Größe", "gröSSe"}, nil, "", ""},
		{"ASCII case around non-ASCII letters", []string{"Größe", "größe"}, nil, `fields "Größe" and "größe" cannot both be columns`, ""},
		{"ASCII case around non-ASCII letters, a column", []string{"PREIS€"}, []string{"preis€"}, `field "PREIS€" cannot be a column: the table has a column "preis€"`, ""},
		{"a system column's name", []string{"ctid"}, nil, "", `field "ctid" cannot be a column: PostgreSQL keeps that name`},
		{"a system column's name in upper case", []string{"CTID", "Xmin"}, nil, "", ""},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			fields := make([]record.Field, len(tc.fields))
			for i, k := range tc.fields {
				fields[i] = record.Field{Key: k, Value: []byte("1")}
			}
			var tbl *table
			if tc.table != nil {
				cols := make([]column, len(tc.table))
				for i, c := range tc.table {
					cols[i] = column{name: c, typ: colInteger, decl: "INTEGER"}
				}
				tbl = newTable(cols)
			}
			for _, r := range []struct {
				rules columnRules
				want  string
			}{{sqliteColumns, tc.sqlite}, {postgresColumns, tc.pg}} {
				err := r.rules.checkNames(fields, tbl)
				switch {
				case r.want == "" && err != nil:
					t.Errorf("%s: %v, want no error", r.rules.db, err)
				case r.want != "" && (err == nil || !strings.Contains(err.Error(), r.want)):
					t.Errorf("%s: %v, want %q", r.rules.db, err, r.want)
				}
			}
		})
	}
}

// TestSQLiteColumnsDifferingInNonASCIICase writes items whose fields
// differ only in non-ASCII case into a real SQLite file: each field is a
// column of its own, and the item is written.
func TestSQLiteColumnsDifferingInNonASCIICase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	in := lines(`{"Цена":"100","цена":"100 руб","Über":1,"über":2,"`+"\u212a"+`":3,"k":4}`,
		`{"Цена":"5","цена":"5 руб","Über":5,"über":6,"`+"\u212a"+`":7,"k":8}`)
	code, _, stderr := runCexport(t, in, "-o", "sqlite:"+path+"?table=t")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if got, want := strings.Join(sqliteRows(t, path, "SELECT name FROM pragma_table_info('t')"), ","), "Цена,цена,Über,über,\u212a,k"; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	if got, want := strings.Join(sqliteRows(t, path, `SELECT "Цена", "цена", "Über", "über", "`+"\u212a"+`", "k" FROM t ORDER BY rowid`), "\n"), "100|100 руб|1|2|3|4\n5|5 руб|5|6|7|8"; got != want {
		t.Errorf("rows:\n%s\nwant:\n%s", got, want)
	}
}
