package crawl

import (
	"testing"
)

// TestDBOutTable: a database OUT names its crawl after its table.
func TestDBOutTable(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"sqlite:shop.db?table=products", "products"},
		{"postgres://u@h:5432/db?sslmode=disable&table=books", "books"},
		{"sqlite:shop.db", ""},
		{"items.csv", ""},
	} {
		if got := dbOutTable(c.out); got != c.want {
			t.Errorf("dbOutTable(%q) = %q, want %q", c.out, got, c.want)
		}
	}
	if got := defaultCrawlID("sqlite:shop.db?table=products", "crawl.db"); got != "products" {
		t.Errorf("defaultCrawlID = %q", got)
	}
}
