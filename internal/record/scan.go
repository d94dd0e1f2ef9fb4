package record

import (
	"encoding/json"
	"unicode/utf8"
)

// unknownFields returns the top-level members of the JSON object raw whose
// keys are not in known, or nil when there are none. raw must be valid JSON
// (Decode checks that first); on anything unexpected it gives up and returns
// what it found so far.
func unknownFields(raw []byte, known map[string]bool) map[string]json.RawMessage {
	var extra map[string]json.RawMessage
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] != '"' {
			return extra
		}
		kStart := i
		i = skipString(raw, i)
		key := string(raw[kStart+1 : i-1])
		if !plainKey(key) {
			if json.Unmarshal(raw[kStart:i], &key) != nil {
				return extra
			}
		}
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] != ':' {
			return extra
		}
		i = skipSpace(raw, i+1)
		vStart := i
		i = skipValue(raw, i)
		if !known[key] {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[key] = json.RawMessage(raw[vStart:i])
		}
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] != ',' {
			return extra
		}
		i++
	}
}

// plainKey reports whether key needs no JSON unescaping or UTF-8 repair.
func plainKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] == '\\' || key[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
