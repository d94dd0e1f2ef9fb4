package record

// decodeString decodes a string value into dst; null leaves dst alone, as
// in encoding/json. v is a valid JSON value.
func decodeString(v []byte, dst *string) bool {
	switch v[0] {
	case '"':
		s, ok := Unquote(v)
		*dst = s
		return ok
	case 'n':
		return true
	}
	return false
}

// decodeKind is decodeString without an allocation for "request".
func decodeKind(v []byte, dst *string) bool {
	if string(v) == `"`+KindRequest+`"` {
		*dst = KindRequest
		return true
	}
	return decodeString(v, dst)
}

// decodeBool decodes true or false into dst; null leaves dst alone.
func decodeBool(v []byte, dst *bool) bool {
	switch v[0] {
	case 't':
		*dst = true
		return true
	case 'f':
		*dst = false
		return true
	case 'n':
		return true
	}
	return false
}

// decodeInt decodes an integer of at most 18 digits (9 where int is 32
// bits wide), which fits any int, into dst; null leaves dst alone. A
// fraction, an exponent or more digits are left to encoding/json (it
// accepts some, such as -0, and refuses others).
func decodeInt[T int | int64](v []byte, dst *T) bool {
	if v[0] == 'n' {
		return true
	}
	digits := v
	if digits[0] == '-' {
		digits = digits[1:]
	}
	max := 18
	if T(1)<<31<<1 == 0 { // a 32-bit int
		max = 9
	}
	if len(digits) == 0 || len(digits) > max {
		return false
	}
	var n T
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + T(c-'0')
	}
	if v[0] == '-' {
		n = -n
	}
	*dst = n
	return true
}

// decodeStrings decodes an array of strings into dst as encoding/json
// decodes it into a nil slice: null is nil, [] is empty but not nil, a null
// element is "".
func decodeStrings(v []byte, dst *[]string) bool {
	switch v[0] {
	case 'n':
		*dst = nil
		return true
	case '[':
	default:
		return false
	}
	out := []string{}
	i := skipSpace(v, 1)
	if v[i] == ']' {
		*dst = out
		return true
	}
	for {
		switch v[i] {
		case '"':
			end := scanString(v, i)
			s, ok := Unquote(v[i:end])
			if !ok {
				return false
			}
			out = append(out, s)
			i = end
		case 'n':
			out = append(out, "")
			i += len("null")
		default:
			return false
		}
		i = skipSpace(v, i)
		if v[i] == ']' {
			*dst = out
			return true
		}
		i = skipSpace(v, i+1) // past the comma
	}
}

// decodeHeaders decodes an object of strings into dst as encoding/json
// decodes it into a nil map: null is nil, a null value is "", the last of
// repeated keys wins.
func decodeHeaders(v []byte, dst *map[string]string) bool {
	switch v[0] {
	case 'n':
		*dst = nil
		return true
	case '{':
	default:
		return false
	}
	m := map[string]string{}
	ok := true
	scanObject(v, func(key, value []byte) {
		switch {
		case !ok:
		case value[0] == '"':
			var s string
			s, ok = Unquote(value)
			m[string(key)] = s
		case value[0] == 'n':
			m[string(key)] = ""
		default:
			ok = false
		}
	})
	*dst = m
	return ok
}
