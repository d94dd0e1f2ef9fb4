package record

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docFieldsOnly are fields docs/records.md documents that no struct here
// declares: a command reads them from the record's Extra. Each needs a
// reason.
var docFieldsOnly = map[string][]string{
	"request": {"proxy", "round", "link_kind", "source", "discover", "max_pages", "max_items", "max_errors", "max_time", "max_idle", "files_item"}, // cfetch reads proxy from Request.Extra (internal/cfetch/fetch.go); the frontier and cextract read round from it; cextract writes link_kind and source (internal/cextract/response.go), nobody reads them; cqueue push reads discover (internal/cqueue/discover.go, through policy.Discover) and cextract passes it on; cqueue push reads the budget fields (internal/cqueue/push_budget.go); cextract writes and reads files_item (internal/cextract/files.go), the frontier reads it through policy.Exempt
	"item":    {"round"},                                                                                                                           // cextract writes it from the request's Extra (internal/cextract/records.go)
}

// TestRecordsDocListsEveryField: every JSON field of Request, Response,
// Item and Ack, read from the struct tags, is in docs/records.md's table
// for that record, and the table lists no field the struct lacks. A field
// added to a struct without a line in the doc fails here.
func TestRecordsDocListsEveryField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/records.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		section string
		v       any
	}{
		{KindRequest, Request{}},
		{KindResponse, Response{}},
		{KindItem, Item{}},
		{KindAck, Ack{}},
	} {
		table := docTableFields(t, string(doc), c.section)
		fields := jsonFields(reflect.TypeOf(c.v))
		for _, f := range fields {
			if !slices.Contains(table, f) {
				t.Errorf("docs/records.md, ## %s: the table lacks `%s` (a field of %T)", c.section, f, c.v)
			}
		}
		for _, f := range table {
			if !slices.Contains(fields, f) && !slices.Contains(docFieldsOnly[c.section], f) {
				t.Errorf("docs/records.md, ## %s: the table lists `%s`, which %T does not have", c.section, f, c.v)
			}
		}
		checkNestedFields(t, string(doc), c.section, reflect.TypeOf(c.v))
	}
}

// checkNestedFields: a field holding objects of a struct of this package
// (redirects: Redirect) has each of their JSON fields in its row of the
// table, quoted: {"url": …, "status": 301}.
func checkNestedFields(t *testing.T, doc, section string, typ reflect.Type) {
	t.Helper()
	for f := range typ.Fields() {
		elem := f.Type
		for elem.Kind() == reflect.Slice || elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if elem.Kind() != reflect.Struct || elem.PkgPath() != typ.PkgPath() {
			continue
		}
		name := jsonName(f)
		row := fieldRow(t, doc, section, name)
		for _, sub := range jsonFields(elem) {
			if !strings.Contains(row, `"`+sub+`"`) {
				t.Errorf("docs/records.md, ## %s: the row of `%s` does not show its objects' field \"%s\" (of %s)", section, name, sub, elem.Name())
			}
		}
	}
}

// fieldRow returns the row of field name in the table under "## section".
func fieldRow(t *testing.T, doc, section, name string) string {
	t.Helper()
	_, body, _ := strings.Cut(doc, "\n## "+section+"\n")
	body, _, _ = strings.Cut(body, "\n## ")
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "| `"+name+"` |") {
			return line
		}
	}
	t.Errorf("docs/records.md, ## %s: no row for `%s`", section, name)
	return ""
}

// jsonFields returns the JSON names of a struct's fields, in order.
func jsonFields(typ reflect.Type) []string {
	var names []string
	for f := range typ.Fields() {
		if name := jsonName(f); f.IsExported() && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// jsonName is the JSON name of a struct field ("-": none).
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

var docTableRow = regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\|")

// docTableFields returns the field names in the first column of the table
// under "## section" in doc.
func docTableFields(t *testing.T, doc, section string) []string {
	t.Helper()
	_, body, ok := strings.Cut(doc, "\n## "+section+"\n")
	if !ok {
		t.Fatalf("docs/records.md has no section ## %s", section)
	}
	body, _, _ = strings.Cut(body, "\n## ")
	var names []string
	for _, m := range docTableRow.FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("docs/records.md, ## %s: no table of fields (rows like | `url` | string | … |)", section)
	}
	return names
}
