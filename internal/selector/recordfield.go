package selector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/record"
)

// FieldSelector is "@NAME" or "@NAME.KEY…": a field of the record the page
// came from rather than of the page — "@url" (the final URL, after
// redirects), "@status", "@fetched_at", "@request.url",
// "@request.attrs.category". Strings, numbers (exact) and booleans are
// values; an array gives each of its elements; an object gives its JSON
// text; null or a missing field gives nothing.
type FieldSelector struct {
	path []string
}

func CompileField(src string) (*FieldSelector, error) {
	name := strings.TrimPrefix(strings.TrimSpace(src), "@")
	fail := func(err error) (*FieldSelector, error) { return nil, &SyntaxError{"record field", src, err} }
	if name == "" {
		return fail(errors.New("@ needs the name of a record field, e.g. @url"))
	}
	f := &FieldSelector{path: strings.Split(name, ".")}
	for _, k := range f.path {
		if k == "" || strings.ContainsAny(k, " \t\r\n[]()/\"'") {
			return fail(fmt.Errorf("want @FIELD or @FIELD.KEY (such as @url or @request.attrs.category), got %q", "@"+name))
		}
	}
	return f, nil
}

func (f *FieldSelector) each(d *Doc, fn func(Value) bool) { f.EachIn(d.RecordField, fn) }

// EachIn is each with the record's top-level fields looked up by get.
func (f *FieldSelector) EachIn(get func(string) json.RawMessage, fn func(Value) bool) {
	raw := get(f.path[0])
	for _, k := range f.path[1:] {
		if len(raw) == 0 || raw[0] != '{' {
			return
		}
		fields, err := record.Fields(raw)
		if err != nil {
			return
		}
		raw = nil
		for _, fl := range fields {
			if fl.Key == k {
				raw = fl.Value
			}
		}
	}
	jsonValues(raw, fn, true)
}

// jsonValues calls fn with the value of one JSON value; the elements of an
// array (at the top only) each count as one.
func jsonValues(raw json.RawMessage, fn func(Value) bool, top bool) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return true
	}
	switch raw[0] {
	case 'n':
		return true
	case 't', 'f':
		return fn(BoolValue(raw[0] == 't'))
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return true
		}
		return fn(StringValue(s))
	case '[':
		if !top {
			return fn(StringValue(string(raw)))
		}
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return true
		}
		for _, e := range elems {
			if !jsonValues(e, fn, false) {
				return false
			}
		}
		return true
	case '{':
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return true
		}
		return fn(StringValue(b.String()))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return true
	}
	// Keep the number as written: it is valid JSON and exact.
	return fn(Value{Kind: Number, Num: f, Text: string(raw)})
}
