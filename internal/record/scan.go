package record

import "encoding/json"

// The one-pass reader of JSON objects. A record line can be large (a
// response is mostly its body) and encoding/json would scan it several
// times: to classify it, decode it, collect its unknown fields, look up one
// field. ScanObject validates a line once and returns its top-level members.
// It accepts exactly what encoding/json accepts (the fuzz targets hold it to
// that), so a caller can fall back to encoding/json whenever it says no and
// report encoding/json's error.

// maxDepth is encoding/json's nesting limit: arrays and objects nested
// deeper are invalid.
const maxDepth = 10000

// ScanObject validates b as one JSON object, with JSON white space around it
// allowed, exactly as json.Valid does, and returns its members in document
// order: keys decoded as encoding/json decodes them, values as slices of b
// (so numbers stay exact). Duplicate keys are all returned, in order; where
// encoding/json reads the object into a map or struct, the last one wins.
// fields is nil for an empty object. ok is false for anything that is not a
// valid JSON object; encoding/json can then say what is wrong with it.
func ScanObject(b []byte) (fields []Field, ok bool) {
	return ScanObjectInto(nil, b, nil)
}

// ScanObjectInto is ScanObject appending the members to dst, each key made
// by key (nil: string(key); a caller that sees the same keys again and
// again can intern them), so that a hot loop can reuse one slice and spare
// the allocations. On invalid input it returns dst[:0] and false.
func ScanObjectInto(dst []Field, b []byte, key func([]byte) string) (fields []Field, ok bool) {
	return scanObjectInto(dst, b, key, nil)
}

// scanObjectInto is ScanObjectInto that sets *lone as scanObjectLone does.
func scanObjectInto(dst []Field, b []byte, key func([]byte) string, lone *bool) (fields []Field, ok bool) {
	fields = dst[:0]
	ok = scanObjectLone(b, func(k, value []byte) {
		var ks string
		if key != nil {
			ks = key(k)
		} else {
			ks = string(k)
		}
		fields = append(fields, Field{Key: ks, Value: json.RawMessage(value)})
	}, lone)
	if !ok {
		return dst[:0], false
	}
	if len(fields) == 0 && dst == nil {
		return nil, true
	}
	return fields, true
}

// KeyCache interns object keys for ScanObjectInto: a key seen before is
// returned without an allocation. It holds at most max keys (new ones past
// that are allocated each time), so hostile input with a million distinct
// keys costs no more than max strings. The zero value is not ready: use
// NewKeyCache. Not safe for concurrent use.
type KeyCache struct {
	m   map[string]string
	max int
}

// NewKeyCache returns a cache of at most max keys.
func NewKeyCache(max int) *KeyCache { return &KeyCache{m: map[string]string{}, max: max} }

// Key returns k as a string, interned.
func (c *KeyCache) Key(k []byte) string {
	if s, ok := c.m[string(k)]; ok {
		return s
	}
	s := string(k)
	if len(c.m) < c.max {
		c.m[s] = s
	}
	return s
}

// scanObject validates b as ScanObject does and calls member for each
// top-level member in order, with the key decoded (valid only during the
// call) and the value a slice of b. On invalid input it returns false, maybe
// after some calls to member.
func scanObject(b []byte, member func(key, value []byte)) bool {
	return scanObjectLone(b, member, nil)
}

// scanObjectLone is scanObject that also sets *lone (when lone is not nil)
// if a string holds an escaped lone surrogate, which Parse mends: found in
// the same pass, it costs a line without one nothing.
func scanObjectLone(b []byte, member func(key, value []byte), lone *bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	var buf []byte // for keys with escapes, reused
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		ks := i
		if i = scanStringLone(b, i, lone); i < 0 {
			return false
		}
		key := b[ks+1 : i-1]
		if !plainString(key) {
			var ok bool
			if buf, ok = appendUnquoted(buf[:0], key); !ok {
				return false
			}
			key = buf
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vs := i
		if i = scanValueLone(b, i, 1, lone); i < 0 {
			return false
		}
		member(key, b[vs:i])
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return skipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the index just past the JSON value starting at b[i],
// or -1 when there is none. depth is the number of arrays and objects
// around it.
func scanValue(b []byte, i, depth int) int { return scanValueLone(b, i, depth, nil) }

// scanValueLone is scanValue that sets *lone as scanObjectLone does.
func scanValueLone(b []byte, i, depth int, lone *bool) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return scanStringLone(b, i, lone)
	case c == '{':
		if depth >= maxDepth {
			return -1
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = scanStringLone(b, i, lone); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = scanValueLone(b, skipSpace(b, i+1), depth+1, lone); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == '}' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		if depth >= maxDepth {
			return -1
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = scanValueLone(b, i, depth+1, lone); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == ']' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	}
	return -1
}

func scanLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber returns the index just past the number starting at b[i], or -1.
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

// strStop marks the bytes that end a run of a string's plain bytes: its
// closing quote, an escape, and the control characters it may not hold.
var strStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// scanString returns the index just past the string starting at b[i] == '"',
// or -1 when it is not a valid JSON string (unterminated, a control
// character, a bad escape). Invalid UTF-8 is valid here, as in encoding/json.
func scanString(b []byte, i int) int { return scanStringLone(b, i, nil) }

// scanStringLone is scanString that sets *lone as scanObjectLone does.
func scanStringLone(b []byte, i int, lone *bool) int {
	i++
	for i < len(b) {
		// Most bytes of a string are none of the three below: skip them
		// by table, eight at a time while there are eight.
		for i+8 <= len(b) && !strStop[b[i]] && !strStop[b[i+1]] && !strStop[b[i+2]] && !strStop[b[i+3]] &&
			!strStop[b[i+4]] && !strStop[b[i+5]] && !strStop[b[i+6]] && !strStop[b[i+7]] {
			i += 8
		}
		for i < len(b) && !strStop[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
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
				r, ok := hex4(b, i+2)
				if !ok {
					return -1
				}
				if r&0xf800 != 0xd800 || lone == nil {
					i += 6
					break
				}
				n, l := uEscape(b, i, r)
				*lone = *lone || l
				i += n
			default:
				return -1
			}
		default: // a control character (strStop holds no other byte)
			return -1
		}
	}
	return -1
}
