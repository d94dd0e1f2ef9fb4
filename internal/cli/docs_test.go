package cli

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRecordsDocListsEveryStatsField: every JSON field of the --stats FILE
// document (StatsJSON, read from its struct tags) is in the table of
// docs/records.md's section on stats, and the table lists no other.
func TestRecordsDocListsEveryStatsField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/records.md")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(doc), "\n## Stats")
	if !ok {
		t.Fatal("docs/records.md has no section ## Stats")
	}
	body, _, _ = strings.Cut(body, "\n## ")
	// Rows: | `started_at`, `duration_s`, `rate_per_s` | meaning |
	name := regexp.MustCompile("`([a-z0-9_]+)`")
	var table []string
	for _, line := range strings.Split(body, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.HasPrefix(line, "| `") {
			for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
				table = append(table, m[1])
			}
		}
	}
	var fields []string
	for f := range reflect.TypeFor[StatsJSON]().Fields() {
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && n != "-" && n != "" {
			fields = append(fields, n)
		}
	}
	if len(fields) < 10 {
		t.Fatalf("StatsJSON has %d JSON fields (%q); want every one tagged", len(fields), fields)
	}
	for _, f := range fields {
		if !slices.Contains(table, f) {
			t.Errorf("docs/records.md, ## Stats: the table lacks `%s` (a field of StatsJSON)", f)
		}
	}
	for _, f := range table {
		if !slices.Contains(fields, f) {
			t.Errorf("docs/records.md, ## Stats: the table lists `%s`, which StatsJSON does not have", f)
		}
	}
}
