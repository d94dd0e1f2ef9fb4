package rules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// TestSchemaMatchesTheParser: docs/rules.schema.json describes exactly the
// keys the parser accepts, so editors flag what cextract would refuse.
func TestSchemaMatchesTheParser(t *testing.T) {
	data, err := os.ReadFile("../../../docs/rules.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties  map[string]json.RawMessage `json:"properties"`
		Definitions map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
			OneOf      []struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"oneOf"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	keys := func(m map[string]json.RawMessage) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	check := func(name string, got []string) {
		want := slices.Clone(Keys[name])
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: schema has %v, the parser takes %v", name, got, want)
		}
	}
	check("file", keys(schema.Properties))
	for _, name := range []string{"match", "item", "link", "sitemap", "test", "test_items", "test_links"} {
		check(name, keys(schema.Definitions[name].Properties))
	}
	check("field", keys(schema.Definitions["field"].OneOf[1].Properties))
	// Every example rules file parses.
	files, _ := filepath.Glob("../../../testdata/rules/*.yml")
	if len(files) < 3 {
		t.Fatalf("rules files: %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data); err != nil {
			t.Errorf("%v", err)
		}
	}
}
