package cexport

import (
	"fmt"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// A field an item has and the header of a table export lacks is left out
// of the item's row, never silently: the item is reported with its line,
// its URL and the fields, counted (errors: not_in_header) and the exit
// status is 3. The row is written all the same, with the fields the header
// has: rejecting the item would lose them too.

// errNotInHeader is the stats' error kind of an item written without
// fields the header lacks.
const errNotInHeader = "not_in_header"

// current is the item being written, for the report of its fields not in
// the header.
type current struct {
	line ndjson.Line
	// top is the record's top-level fields, data its item's.
	top, data []record.Field
}

// url is the item's URL: the item record's, or a plain object's own url
// field; "" when it has none.
func (c *current) url() string {
	for _, fields := range [][]record.Field{c.top, c.data} {
		for _, f := range fields {
			if f.Key == "url" && f.Value[0] == '"' {
				return jsonString(f.Value)
			}
		}
	}
	return ""
}

// notInHeader reports the item being written, whose fields the header
// lacks; after maxWarnings items, one line says the rest are only counted.
func (s *session) notInHeader(fields []string, notIn, hint string) {
	s.tool.Stats.Error(errNotInHeader)
	s.tool.MarkPartial()
	s.notInHeaderN++
	switch {
	case s.notInHeaderN > maxWarnings+1:
		return
	case s.notInHeaderN > maxWarnings:
		s.tool.Printf("more items with fields not in the header: not reporting them any more (counted: errors: %s)", errNotInHeader)
		return
	}
	where := s.cur.line.Pos()
	if u := s.cur.url(); u != "" {
		where += ": item " + u
	}
	quoted := make([]string, len(fields))
	for i, f := range fields {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	what, them := "field "+quoted[0]+" is", "it"
	if len(fields) > 1 {
		what, them = "fields "+strings.Join(quoted, ", ")+" are", "them"
	}
	s.tool.Printf("%s: %s not in %s: written without %s; %s", where, what, notIn, them, strings.ReplaceAll(hint, "{it}", them))
}
