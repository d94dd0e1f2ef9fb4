package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Decode parses one JSON object into v (a *Request, *Response, *Item or *Ack)
// and keeps the fields v does not declare in its Extra map. Errors name the
// JSON field and what was wrong with it, never a Go type. A request's
// numbers are checked against their bounds (MaxRetries, MaxPriority, …):
// one out of them is an error too.
//
// Members are matched to fields as encoding/json matches them ("URL" is
// the url), but for the kind: only a member named "kind" is the record's
// kind, as Parse reads it. One that encoding/json would also take for it
// ("Kind", "KIND") is an unknown member like any other, kept in Extra
// whatever its value.
//
// v may also be a pointer to a struct of the caller's own, for a command
// that needs only a few fields of any record: it is decoded as
// encoding/json decodes it, with the same errors as for a record (and the
// same rule for "kind").
func Decode(raw []byte, v any) error {
	if r, ok := v.(*Request); ok && r != nil && zeroRequest(r) {
		extra := r.Extra
		if decodeRequest(raw, r) {
			return checkRequestNumbers(r)
		}
		*r = Request{Extra: extra}
	}
	if it, ok := v.(*Item); ok && it != nil && zeroItem(it) {
		extra := it.Extra
		if decodeItem(raw, it) {
			return nil
		}
		*it = Item{Extra: extra}
	}
	return decodeSlow(raw, v)
}

// decodeSlow is Decode with encoding/json, for every record the fast paths
// do not take (and for the tests, to hold them to it).
func decodeSlow(raw []byte, v any) error {
	if err := json.Unmarshal(withoutKindLookalikes(raw), v); err != nil {
		return describe(err)
	}
	switch r := v.(type) {
	case *Request:
		r.Extra = unknownFields(raw, knownKeys(v))
		return checkRequestNumbers(r)
	case *Response:
		r.Extra = unknownFields(raw, knownKeys(v))
	case *Item:
		r.Extra = unknownFields(raw, knownKeys(v))
	case *Ack:
		r.Extra = unknownFields(raw, knownKeys(v))
	}
	return nil
}

// withoutKindLookalikes returns raw without the top-level members that
// encoding/json would decode into a field tagged "kind" although their
// key is not "kind" ("Kind", "KIND": isKindLookalike), so that only
// "kind" is the kind, as Parse reads it; unknownFields still keeps them.
// raw itself when it has none, or is not a valid object (for
// encoding/json's error).
func withoutKindLookalikes(raw []byte) []byte {
	found := false
	if !scanObject(raw, func(key, _ []byte) { found = found || isKindLookalike(key) }) || !found {
		return raw
	}
	out := make([]byte, 0, len(raw))
	out = append(out, '{')
	scanObject(raw, func(key, value []byte) {
		if isKindLookalike(key) {
			return
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = AppendString(out, key)
		out = append(out, ':')
		out = append(out, value...)
	})
	return append(out, '}')
}

// unknownFields returns the top-level members of the JSON object raw whose
// keys are not in known, or nil when there are none. raw must be valid JSON
// (Decode checks that first).
func unknownFields(raw []byte, known map[string]bool) map[string]json.RawMessage {
	var extra map[string]json.RawMessage
	scanObject(raw, func(key, value []byte) {
		if !known[string(key)] {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[string(key)] = json.RawMessage(value)
		}
	})
	return extra
}

var encoderPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Encode returns v as one JSON line (with the trailing newline), HTML
// characters unescaped so URLs stay readable, and the Extra fields of a
// typed record appended in key order.
//
// A raw member (attrs, item data, a response's request, an unknown field)
// with invalid UTF-8 or an escaped lone surrogate is written mended (Mend),
// as a string is, so the line is always JSON that any parser reads.
func Encode(v any) ([]byte, error) {
	switch r := v.(type) {
	case *Request:
		if r != nil {
			if line, ok := encodeRequest(r); ok {
				return line, nil
			}
		}
	case *Response:
		if r != nil {
			if line, ok := encodeResponse(r); ok {
				return line, nil
			}
		}
	}
	return encodeSlow(v)
}

// encodeSlow is Encode with encoding/json, for every record the fast paths
// do not take (and for the tests, to hold them to it).
func encodeSlow(v any) ([]byte, error) {
	buf := encoderPool.Get().(*bytes.Buffer)
	defer encoderPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	var extra map[string]json.RawMessage
	switch r := v.(type) {
	case *Request:
		extra = r.Extra
	case *Response:
		extra = r.Extra
	case *Item:
		extra = r.Extra
	case *Ack:
		extra = r.Extra
	}
	if len(extra) == 0 {
		if !rawValid(v) {
			return bytes.Clone(Mend(out)), nil
		}
		return bytes.Clone(out), nil
	}
	// out ends with "}\n": reopen the object and append the extra fields.
	line := make([]byte, 0, len(out)+64*len(extra))
	line = append(line, out[:len(out)-2]...)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if len(line) > 1 {
			line = append(line, ',')
		}
		kb, _ := json.Marshal(k)
		line = append(line, kb...)
		line = append(line, ':')
		line = append(line, compact(extra[k])...)
	}
	line = append(line, '}', '\n')
	if !rawValid(v) {
		line = Mend(line)
	}
	return line, nil
}

// compact drops insignificant whitespace so a record stays on one line.
func compact(raw json.RawMessage) []byte {
	if !bytes.ContainsAny(raw, "\n\r") {
		return raw
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

var knownCache sync.Map // reflect.Type -> map[string]bool

// knownKeys lists the JSON names of the fields v's struct type declares.
func knownKeys(v any) map[string]bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if k, ok := knownCache.Load(t); ok {
		return k.(map[string]bool)
	}
	keys := map[string]bool{}
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				keys[name] = true
			}
		}
	}
	knownCache.Store(t, keys)
	return keys
}

// describe turns encoding/json's errors into messages a user can act on.
func describe(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && strings.HasSuffix(syn.Error(), "exceeded max depth"):
		// Valid JSON, but deeper than encoding/json (and jq) reads: not
		// "invalid JSON", and not "invalid character '['".
		return fmt.Errorf("nested more than %d levels deep (at byte %d)", maxDepth, syn.Offset)
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Errorf("expected a JSON object, got %s", typ.Value)
		}
		return fmt.Errorf("field %q: expected %s, got %s", typ.Field, friendlyType(typ.Type), typ.Value)
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

// friendlyType names what a value of Go type t is in JSON, with its
// article: "a string", "an array of string". It never names a Go type.
func friendlyType(t reflect.Type) string {
	noun := jsonNoun(t)
	switch {
	case t.Kind() == reflect.Bool:
		return noun
	case strings.IndexByte("aeiou", noun[0]) >= 0:
		return "an " + noun
	}
	return "a " + noun
}

// jsonNoun names what a value of Go type t is in JSON, without an article.
func jsonNoun(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "non-negative integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "array of " + jsonNoun(t.Elem())
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Pointer:
		return jsonNoun(t.Elem())
	}
	return "JSON value"
}
