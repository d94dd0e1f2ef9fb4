package cthrottle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/throttle"
)

// What happens to a record.
type class int

const (
	classPass    class = iota // not a request: passes at once
	classKeyed                // a request with a key: throttled
	classUnkeyed              // a request without a key
)

// parsed is one input line as the reader hands it on: the record and its
// classification (record.ParseFields's fields, so a line is scanned once).
type parsed struct {
	env    record.Envelope
	fields []record.Field
}

func parseLine(b []byte) (parsed, error) {
	env, fields, err := record.ParseFields(b)
	if err == nil && env.Bare {
		fields, _ = record.ScanObject(env.Raw)
	}
	return parsed{env, fields}, err
}

// keyer computes the key of a request: its host, or --key's value.
type keyer struct {
	query *gojq.Code // --key, nil for the host
}

func newKeyer(expr string) (*keyer, error) {
	if expr == "" {
		return &keyer{}, nil
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("--key %q: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("--key %q: %v", expr, err)
	}
	return &keyer{query: code}, nil
}

// field returns the value of the top-level member name (the last one, as
// encoding/json reads it; names compared as encoding/json compares them
// with a struct's fields).
func field(fields []record.Field, name string) []byte {
	var v []byte
	for _, f := range fields {
		if strings.EqualFold(f.Key, name) {
			v = f.Value
		}
	}
	return v
}

// stringField returns the member name when it is a string.
func stringField(fields []record.Field, name string) (string, bool) {
	v := field(fields, name)
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return record.Unquote(v)
}

// classify says what happens to a record and, for a request, gives its key,
// its origin (scheme://host, for robots.txt; "" with --key) and whether it
// carries a lease. err is a record --key cannot be evaluated on.
func (k *keyer) classify(p parsed) (c class, key, origin string, leased bool, err error) {
	switch {
	case p.env.Kind == record.KindRequest:
	case p.env.Kind == "" && field(p.fields, "url") != nil:
		// An object without a kind but with a url is a request, as
		// cqueue push reads it.
	default:
		return classPass, "", "", false, nil
	}
	// A request is checked as every tool checks it (field types, bounds),
	// so a bad one is reported here, with its line, not passed on.
	var req record.Request
	if err := record.Decode(p.env.Raw, &req); err != nil {
		return 0, "", "", false, err
	}
	if err := record.CheckURL(&req); err != nil {
		return 0, "", "", false, err
	}
	if l := field(p.fields, "lease"); len(l) > 0 && string(l) != "null" && string(l) != `""` {
		leased = true
	}
	if k.query != nil {
		key, ok, err := k.eval(p.env.Raw)
		if err != nil {
			return 0, "", "", leased, err
		}
		if !ok {
			return classUnkeyed, "", "", leased, nil
		}
		return classKeyed, key, "", leased, nil
	}
	raw, _ := stringField(p.fields, "url")
	key, origin = throttle.HostKey(raw)
	if key == "" {
		return classUnkeyed, "", "", leased, nil
	}
	return classKeyed, key, origin, leased, nil
}

// eval runs --key on the record: its first value, a string as it is and
// anything else as JSON (object keys sorted); ok is false when it gives
// nothing, null or "".
func (k *keyer) eval(raw []byte) (string, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", false, err
	}
	it := k.query.Run(record.JQValue(v))
	out, has := it.Next()
	if !has || out == nil {
		return "", false, nil
	}
	if err, isErr := out.(error); isErr {
		return "", false, fmt.Errorf("--key: %v", err)
	}
	if s, isString := out.(string); isString {
		return s, s != "", nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", false, fmt.Errorf("--key: %v", err)
	}
	return string(b), true, nil
}
