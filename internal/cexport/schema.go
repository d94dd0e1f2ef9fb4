package cexport

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// colType is what cexport knows of a column's type: the type it infers for
// a new column from a JSON value, or the kind of an existing column's
// declared type.
type colType int

const (
	colText    colType = iota // strings; also a column whose first value was null
	colInteger                // JSON integers that fit in 64 bits
	colReal                   // other numbers
	colBool                   // true, false
	colJSON                   // objects and arrays, as JSON text
	colOther                  // an existing column of another type (dates, numeric, …)
)

// inferType is the type of a new column whose first value is v.
func inferType(v json.RawMessage) colType {
	switch v[0] {
	case '"', 'n':
		return colText
	case 't', 'f':
		return colBool
	case '{', '[':
		return colJSON
	}
	if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return colInteger
	}
	return colReal
}

// column is one column of the table.
type column struct {
	name string
	typ  colType
	// decl is its type as the database names it; for PostgreSQL, the
	// type values are cast to (format_type, without a length).
	decl string
}

// table is the columns of the output table, in the table's order.
type table struct {
	cols  []column
	index map[string]int
}

func newTable(cols []column) *table {
	t := &table{}
	for _, c := range cols {
		t.add(c)
	}
	return t
}

// add appends c and returns its index.
func (t *table) add(c column) int {
	if t.index == nil {
		t.index = map[string]int{}
	}
	t.cols = append(t.cols, c)
	t.index[c.name] = len(t.cols) - 1
	return len(t.cols) - 1
}

// row is one item, as a row to write: its values by column, in the item's
// order, copied from the input.
type row struct {
	// line is where the item was read, for messages (without its bytes).
	line ndjson.Line
	cols []int
	vals []json.RawMessage
}

// colSet is a key naming the columns of a row, in its order: rows with the
// same one share a statement.
func colSet(cols []int) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(strconv.Itoa(c))
		b.WriteByte(',')
	}
	return b.String()
}

// textValue is v as text for a column of type t, and false for null:
// strings decoded, numbers as written (exact), true/false, objects and
// arrays as compact JSON; in a JSON column every value is its JSON text.
func textValue(v json.RawMessage, t colType) (string, bool) {
	switch {
	case v[0] == 'n':
		return "", false
	case t == colJSON || v[0] == '{' || v[0] == '[':
		return string(appendCompact(nil, v)), true
	case v[0] == '"':
		return jsonString(v), true
	}
	return string(v), true
}
