package selector

import (
	"math"
	"strconv"
	"strings"
)

// ValueKind is the type of a selected value.
type ValueKind uint8

// Value kinds. CSS selectors and XPath node-sets give strings; XPath
// expressions such as count() or boolean() give numbers and booleans.
const (
	String ValueKind = iota
	Number
	Boolean
)

// Value is one result of a selector. The zero value is the empty string.
type Value struct {
	Kind ValueKind
	// Text is the value as text: the string itself, the number formatted
	// (integral numbers without ".0") or "true"/"false".
	Text string
	Num  float64
	Bool bool
}

func StringValue(s string) Value { return Value{Text: s} }

func NumberValue(f float64) Value { return Value{Kind: Number, Num: f, Text: formatNumber(f)} }

func BoolValue(b bool) Value { return Value{Kind: Boolean, Bool: b, Text: strconv.FormatBool(b)} }

// Blank reports whether v carries nothing: a string of white space only, or
// a number that is not finite (XPath's NaN, e.g. number() of a missing node).
func (v Value) Blank() bool {
	switch v.Kind {
	case Number:
		return math.IsNaN(v.Num) || math.IsInf(v.Num, 0)
	case Boolean:
		return false
	}
	return strings.TrimSpace(v.Text) == ""
}

// formatNumber writes f as a JSON number: integral values without a
// fraction, others in the shortest form that reads back exactly.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0" // and not "-0"
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
