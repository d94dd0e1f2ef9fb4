package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/percent"
)

// Envelope is one input line, classified but not decoded.
type Envelope struct {
	// Kind is the record's "kind" field; "" for an object without one.
	Kind string
	// Raw is the JSON object. For a bare URL line it is a synthesized
	// request record.
	Raw []byte
	// Bare is true when the line was a bare URL rather than JSON.
	Bare bool
}

// ErrEmpty is returned by Parse for a line with nothing but white space.
var ErrEmpty = errors.New("empty line")

// Parse classifies one line (without its newline): a JSON object, or a bare
// URL such as https://example.com/, which becomes a request record. Anything
// else is an error saying what was wrong, suitable after "<source>:<line>: ".
//
// Raw is the line itself, trimmed of white space, unless the line has
// invalid UTF-8 or an escaped lone surrogate ("\ud800" alone): each bad
// byte is then replaced by U+FFFD and each lone surrogate by \ufffd in a
// copy (Mend), as encoding/json replaces them when it decodes, so that a
// record passed on unchanged is still JSON that any parser reads (a bare
// URL with invalid UTF-8 is an error).
func Parse(line []byte) (Envelope, error) {
	b := bytes.TrimSpace(line)
	if len(b) > 0 && b[0] == '{' {
		var copied bool
		b, copied = validUTF8(b)
		var kind []byte
		lone := false
		if scanObjectLone(b, func(key, value []byte) {
			if isKindKey(key) {
				kind = value
			}
		}, &lone) {
			// kind decodes the same before and after mending.
			if k, ok := kindValue(kind); ok {
				return Envelope{Kind: k, Raw: mendLone(b, lone, copied)}, nil
			}
		}
	}
	return parse(b)
}

// mendLone returns b with its lone surrogate escapes mended when lone says
// it has any: in place when b is a copy of the line already (copied),
// else in a copy.
func mendLone(b []byte, lone, copied bool) []byte {
	if !lone {
		return b
	}
	i := nextLoneSurrogate(b, 0)
	if i < 0 {
		return b
	}
	if !copied {
		b = bytes.Clone(b)
	}
	mendSurrogates(b, i)
	return b
}

// ParseFields is Parse that also returns the top-level fields of a JSON
// object, as ScanObject does, in the same single pass over the line. fields
// is nil for a bare URL and for an empty object.
func ParseFields(line []byte) (env Envelope, fields []Field, err error) {
	return ParseFieldsInto(nil, line, nil)
}

// ParseFieldsInto is ParseFields appending the fields to dst with keys
// made by key, as ScanObjectInto does.
func ParseFieldsInto(dst []Field, line []byte, key func([]byte) string) (env Envelope, fields []Field, err error) {
	b := bytes.TrimSpace(line)
	if len(b) > 0 && b[0] == '{' {
		var copied bool
		b, copied = validUTF8(b)
		lone := false
		if fs, ok := scanObjectInto(dst, b, key, &lone); ok {
			if lone {
				// Rare: mend the line and read it again, so that
				// the fields are slices of the mended line.
				b = mendLone(b, lone, copied)
				fs, _ = scanObjectInto(fs, b, key, nil)
			}
			var kind []byte
			for _, f := range fs {
				if isKindKey(f.Key) {
					kind = f.Value
				}
			}
			if k, ok := kindValue(kind); ok {
				return Envelope{Kind: k, Raw: b}, fs, nil
			}
		}
	}
	env, err = parse(b)
	return env, nil, err
}

// isKindKey reports whether a member with this key (decoded: "\u006bind"
// is one) is the record's kind: only "kind" itself. "Kind" or "KIND" is an
// ordinary member, data like any other, although encoding/json would
// decode it into a field tagged "kind": API data with a capitalised "Kind"
// is common, and taking it for the record's kind made a plain object a
// record of an unknown kind, passed on or ignored instead of handled.
// Decode holds to the same rule (see withoutKindLookalikes).
func isKindKey[K string | []byte](key K) bool {
	return string(key) == "kind"
}

// isKindLookalike reports whether encoding/json would decode a member with
// this key into a struct field tagged "kind" (it matches names with
// Unicode simple folding: "Kind", "KIND", "\u212aind" with the Kelvin
// sign) although the key is not "kind".
func isKindLookalike[K string | []byte](key K) bool {
	// Four runes of at most utf8.UTFMax bytes each.
	return len(key) >= 4 && len(key) <= 4*utf8.UTFMax && string(key) != "kind" && strings.EqualFold(string(key), "kind")
}

// kindValue decodes the value of "kind" (nil when there is none); ok is
// false when it is neither a string nor null.
func kindValue(v []byte) (kind string, ok bool) {
	switch {
	case len(v) == 0 || string(v) == "null":
		return "", true
	case v[0] == '"':
		switch k := v[1 : len(v)-1]; string(k) { // no allocation for these
		case KindRequest:
			return KindRequest, true
		case KindResponse:
			return KindResponse, true
		case KindItem:
			return KindItem, true
		case KindAck:
			return KindAck, true
		}
		return Unquote(v)
	}
	return "", false
}

// parse is Parse with encoding/json: for what ScanObject does not take, to
// say what is wrong with it. b is the line with its white space trimmed.
func parse(b []byte) (Envelope, error) {
	if len(b) == 0 {
		return Envelope{}, ErrEmpty
	}
	switch b[0] {
	case '{':
		b = Mend(b) // UTF-8 done already when Parse calls it: no copy then
		// A map, not a struct with a field tagged "kind": its keys are
		// matched exactly (isKindKey), the last of a repeated key wins.
		var members map[string]json.RawMessage
		if err := json.Unmarshal(b, &members); err != nil {
			return Envelope{}, describe(err)
		}
		var kind string
		if v := members["kind"]; len(v) > 0 && string(v) != "null" {
			if err := json.Unmarshal(v, &kind); err != nil {
				return Envelope{}, fmt.Errorf("field \"kind\": expected a string, got %s", v)
			}
		}
		return Envelope{Kind: kind, Raw: b}, nil
	case '[':
		if json.Valid(b) {
			return Envelope{}, errors.New("expected a JSON object, got an array (one record per line: try jq -c '.[]')")
		}
		return Envelope{}, describe(json.Unmarshal(b, new(any)))
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if json.Valid(b) {
			return Envelope{}, fmt.Errorf("expected a JSON object or a URL, got %s", jsonTypeName(b))
		}
	case 't', 'f', 'n':
		if json.Valid(b) {
			return Envelope{}, fmt.Errorf("expected a JSON object or a URL, got %s", b)
		}
	}
	if bytes.HasPrefix(b, []byte("\ufeff")) {
		// Invisible in the message: say what it is. (ndjson.Reader skips
		// one at the start of an input; this one is on a later line.)
		return Envelope{}, errors.New("a byte order mark (U+FEFF) before the record: only the first line of an input may start with one")
	}
	u, err := bareURL(b)
	if err != nil {
		return Envelope{}, err
	}
	raw, _ := Encode(&Request{Kind: KindRequest, URL: u})
	return Envelope{Kind: KindRequest, Raw: raw[:len(raw)-1], Bare: true}, nil
}

func jsonTypeName(b []byte) string {
	if b[0] == '"' {
		return "a string"
	}
	return "a number"
}

// bareURL accepts a line holding one absolute URL.
func bareURL(b []byte) (string, error) {
	s := string(b)
	if !utf8.ValidString(s) {
		return "", errors.New("not a JSON object or a URL (invalid UTF-8)")
	}
	if strings.ContainsAny(s, " \t\"{}<>") {
		return "", fmt.Errorf("not a JSON object or a URL: %s", Snippet(b, 60))
	}
	// A '%' that starts no escape ("/sale-50%-off") is a URL all the
	// same: the tools that send it write it "%25".
	u, err := percent.ParseURL(s)
	if err != nil {
		return "", fmt.Errorf("not a JSON object or a URL: %s", strings.TrimPrefix(err.Error(), "parse "))
	}
	if u.Scheme == "" {
		if strings.Contains(s, ".") && !strings.HasPrefix(s, "/") {
			return "", fmt.Errorf("URL without a scheme: %s (did you mean https://%s?)", Snippet(b, 60), s)
		}
		return "", fmt.Errorf("not a JSON object or a URL: %s", Snippet(b, 60))
	}
	return s, nil
}

// Snippet shortens b for an error message, marking the cut.
func Snippet(b []byte, max int) string {
	if len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", b[:cut], len(b))
}

// Field is one member of a JSON object, in document order.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Fields returns the members of the JSON object raw in the order they appear
// (encoding/json's maps lose it, and CSV columns depend on it). Values are
// slices of raw, so numbers stay exact. A key that appears more than once
// keeps its first place and takes its last value, as in encoding/json.
func Fields(raw []byte) ([]Field, error) {
	b := bytes.TrimSpace(raw)
	fields, ok := ScanObject(b)
	if !ok {
		if err := json.Unmarshal(b, new(any)); err != nil {
			return nil, describe(err)
		}
		return nil, errors.New("expected a JSON object")
	}
	return DedupeFields(fields), nil
}

// DedupeFields keeps each key of fields once, at its first place, with its
// last value, as encoding/json reads a key given twice. It works in place.
func DedupeFields(fields []Field) []Field {
	out := fields[:0]
	for _, f := range fields {
		dup := false
		for j := range out {
			if out[j].Key == f.Key {
				out[j].Value = f.Value
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}
