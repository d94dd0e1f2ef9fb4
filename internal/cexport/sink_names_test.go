package cexport

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/pgtest"
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
