package cextract

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/record"
)

// The fast path for reading response records. A response line is mostly its
// body: encoding/json would scan it three or four times (classify, decode,
// collect unknown fields, look up @fields). scanObject validates the line in
// one pass and returns its top-level fields; decodeFast decodes the fields
// a response needs from them. Whenever a line is not a well-typed response
// the slow path (record.Parse, record.Decode) runs instead, so errors and
// edge cases are exactly encoding/json's.

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

// scanObject validates b as one JSON object (surrounding white space
// allowed) with encoding/json's grammar and returns its members in order,
// keys decoded. ok is false for anything else.
func scanObject(b []byte) (fields []record.Field, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		ks := i
		i = scanString(b, i)
		if i < 0 {
			return nil, false
		}
		key, ok := unquote(b[ks:i])
		if !ok {
			return nil, false
		}
		i = skipWS(b, i)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = skipWS(b, i+1)
		vs := i
		i = scanValue(b, i, 1)
		if i < 0 {
			return nil, false
		}
		fields = append(fields, record.Field{Key: key, Value: json.RawMessage(b[vs:i])})
		i = skipWS(b, i)
		if i >= len(b) {
			return nil, false
		}
		if b[i] == '}' {
			return fields, skipWS(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return nil, false
		}
		i = skipWS(b, i+1)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the index after the value starting at b[i], or -1.
func scanValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{':
		if depth >= maxJSONDepth {
			return -1
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = scanString(b, i); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = scanValue(b, skipWS(b, i+1), depth+1); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == '}' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipWS(b, i+1)
		}
	case c == '[':
		if depth >= maxJSONDepth {
			return -1
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = scanValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == ']' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipWS(b, i+1)
		}
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return -1
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return -1
		}
	}
	return i
}

// scanString returns the index after the string starting at b[i], or -1.
func scanString(b []byte, i int) int {
	i++
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
	return -1
}

// unquote decodes a JSON string literal (already validated by scanString)
// as encoding/json does: invalid UTF-8 and lone surrogates become U+FFFD.
func unquote(s []byte) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	// The common case: no escapes, valid UTF-8.
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	b := make([]byte, 0, len(s))
	for len(s) > 0 {
		// The run up to the next escape, in one go when it is valid UTF-8.
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			k = len(s)
		}
		if run := s[:k]; utf8.Valid(run) {
			b = append(b, run...)
		} else {
			for len(run) > 0 {
				r, size := utf8.DecodeRune(run)
				if r == utf8.RuneError && size == 1 {
					b = utf8.AppendRune(b, utf8.RuneError)
				} else {
					b = append(b, run[:size]...)
				}
				run = run[size:]
			}
		}
		s = s[k:]
		if len(s) == 0 {
			break
		}
		// An escape.
		if len(s) < 2 {
			return "", false
		}
		switch s[1] {
		case '"', '\\', '/':
			b = append(b, s[1])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s, 2)
			if !ok {
				return "", false
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					if r2, ok2 := hex4(s, 2); ok2 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							s = s[6:]
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return "", false
		}
		s = s[2:]
	}
	return string(b), true
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, true
}

// decodeFast decodes a response record from its scanned fields. ok is
// false when a field the response uses has a type the fast path does not
// take; the caller then decodes the slow way, for encoding/json's message.
func decodeFast(fields []record.Field) (resp *record.Response, req *record.Request, ok bool) {
	resp = &record.Response{Kind: record.KindResponse}
	req = &record.Request{}
	str := func(v json.RawMessage, dst *string) bool {
		if len(v) > 0 && v[0] == 'n' {
			return true
		}
		if len(v) == 0 || v[0] != '"' {
			return false
		}
		s, ok := unquote(v)
		*dst = s
		return ok
	}
	for _, f := range fields {
		v := f.Value
		switch f.Key {
		case "url":
			ok = str(v, &resp.URL)
		case "body":
			ok = str(v, &resp.Body)
		case "body_base64":
			ok = str(v, &resp.BodyBase64)
		case "body_path":
			ok = str(v, &resp.BodyPath)
		case "error":
			ok = str(v, &resp.Error)
		case "fetched_at":
			ok = str(v, &resp.FetchedAt)
		case "status":
			if len(v) > 0 && v[0] == 'n' {
				ok = true
				break
			}
			n, err := strconv.Atoi(string(v))
			resp.Status, ok = n, err == nil
		case "headers":
			if len(v) > 0 && v[0] == 'n' {
				ok = true
				break
			}
			ok = json.Unmarshal(v, &resp.Headers) == nil
		case "request":
			resp.Request = v
			switch {
			case len(v) > 0 && v[0] == '{':
				ok = record.Decode(v, req) == nil
			default:
				ok = string(v) == "null"
			}
		default:
			ok = true
		}
		if !ok {
			return nil, nil, false
		}
	}
	return resp, req, true
}

// classify is record.Parse with the fast path for JSON objects: it also
// returns the object's top-level fields (nil from the slow path).
func classify(line []byte) (record.Envelope, []record.Field, error) {
	fields, ok := scanObject(line)
	if !ok {
		env, err := record.Parse(line)
		return env, nil, err
	}
	kind := ""
	for _, f := range fields {
		if f.Key != "kind" {
			continue
		}
		switch {
		case string(f.Value) == "null":
			kind = ""
		case f.Value[0] == '"':
			kind, _ = unquote(f.Value)
		default:
			env, err := record.Parse(line) // for its message
			return env, nil, err
		}
	}
	return record.Envelope{Kind: kind, Raw: bytes.TrimSpace(line)}, fields, nil
}
