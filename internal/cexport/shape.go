package cexport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/itchyny/gojq"
)

// What an item goes through before its exporter: the --type and --where
// filters (Scrapy's item_classes and item_filter), then --flatten (nested
// objects as dotted fields, for the table formats), then --fields (choose,
// order and rename fields: FEED_EXPORT_FIELDS as a list or a dict).
//
// A filtered item is not an error: it is counted under "filtered" by
// reason, and the acks after it pass on as usual.

// fieldSpec is one entry of --fields: the item field From, exported as To.
type fieldSpec struct{ From, To string }

// parseFieldSpec parses one --fields entry: NAME, or FROM:TO to export the
// field FROM under the name TO (Scrapy's FEED_EXPORT_FIELDS dict). A
// backslash makes the next character literal, so a name may hold a colon
// (og\:title), a comma (a\,b: see splitList) or a backslash (\\).
func parseFieldSpec(s string) (fieldSpec, error) {
	parts := splitUnescaped(s, ':')
	if len(parts) > 2 {
		return fieldSpec{}, fmt.Errorf("%q: more than one ':' (FIELD or FIELD:NAME; \\: is a colon in a name)", s)
	}
	for i, p := range parts {
		var ok bool
		if parts[i], ok = unescape(p); !ok {
			return fieldSpec{}, fmt.Errorf("%q: a backslash at the end (\\\\ is a backslash, \\, a comma, \\: a colon)", s)
		}
	}
	from, to := parts[0], parts[len(parts)-1]
	if from == "" || to == "" {
		return fieldSpec{}, fmt.Errorf("%q: empty field name (FIELD or FIELD:NAME)", s)
	}
	return fieldSpec{From: from, To: to}, nil
}

// parseFieldSpecs parses --fields and checks that no field is exported
// twice under one name.
func parseFieldSpecs(list []string) ([]fieldSpec, error) {
	specs := make([]fieldSpec, 0, len(list))
	seen := map[string]bool{}
	for _, s := range list {
		if s == "" {
			return nil, fmt.Errorf("--fields %q: empty field name", strings.Join(list, ","))
		}
		fs, err := parseFieldSpec(s)
		if err != nil {
			return nil, fmt.Errorf("--fields %w", err)
		}
		if seen[fs.To] {
			return nil, fmt.Errorf("--fields: field %q is named twice", fs.To)
		}
		seen[fs.To] = true
		specs = append(specs, fs)
	}
	return specs, nil
}

// outNames returns the exported names of specs, in order.
func outNames(specs []fieldSpec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.To
	}
	return names
}

// project returns the members of fields named in specs, in that order and
// under their new names, leaving out fields the item does not have. buf is
// reused.
func project(fields []record.Field, specs []fieldSpec, buf []record.Field) []record.Field {
	buf = buf[:0]
	for _, s := range specs {
		for _, f := range fields {
			if f.Key == s.From {
				buf = append(buf, record.Field{Key: s.To, Value: f.Value})
				break
			}
		}
	}
	return buf
}

// flatten returns fields with each nested object's members as fields of
// their own, named by the path with dots (dims.w); arrays stay values (a
// JSON cell), and an empty object stays {}. A name made twice (an item with
// both "a.b" and "a":{"b":…}) keeps its first place and takes the later
// value. buf is reused.
func flatten(fields []record.Field, buf []record.Field) []record.Field {
	nested := false
	for _, f := range fields {
		if f.Value[0] == '{' {
			nested = true
			break
		}
	}
	if !nested {
		return fields
	}
	buf = buf[:0]
	for _, f := range fields {
		buf = appendFlat(buf, f.Key, f.Value, 0)
	}
	return record.DedupeFields(buf)
}

// maxFlatDepth bounds the recursion on hostile input; deeper objects stay
// JSON cells.
const maxFlatDepth = 64

func appendFlat(dst []record.Field, key string, v json.RawMessage, depth int) []record.Field {
	if v[0] != '{' || depth >= maxFlatDepth {
		return append(dst, record.Field{Key: key, Value: v})
	}
	members, ok := record.ScanObject(bytes.TrimSpace(v))
	if !ok || len(members) == 0 {
		return append(dst, record.Field{Key: key, Value: v})
	}
	for _, m := range members {
		dst = appendFlat(dst, key+"."+m.Key, m.Value, depth+1)
	}
	return dst
}

// predicate is a compiled --where: a jq expression run on each item's data,
// with the whole record as $record.
type predicate struct {
	code *gojq.Code
}

func compilePredicate(src string) (*predicate, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("--where %q: %v", src, err)
	}
	code, err := gojq.Compile(q, gojq.WithVariables([]string{"$record"}))
	if err != nil {
		return nil, fmt.Errorf("--where %q: %v", src, err)
	}
	return &predicate{code: code}, nil
}

// keep runs the predicate on data (an item's data object) with rec (the
// whole record) as $record: the item is kept when a result is neither
// false nor null, as jq's select keeps it. An error of the expression on
// this item is returned.
func (p *predicate) keep(data, rec []byte) (bool, error) {
	d, err := decodeJQ(data)
	if err != nil {
		return false, err
	}
	r := d
	if !bytes.Equal(data, rec) {
		if r, err = decodeJQ(rec); err != nil {
			return false, err
		}
	}
	iter := p.code.Run(d, r)
	for {
		v, ok := iter.Next()
		if !ok {
			return false, nil
		}
		if err, ok := v.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return false, nil
			}
			return false, err
		}
		if v != nil && v != false {
			return true, nil
		}
	}
}

func decodeJQ(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return record.JQValue(v), nil
}
