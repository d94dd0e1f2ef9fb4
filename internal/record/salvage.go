package record

// FindString returns the string at path (a chain of object keys from the
// top, such as "request", "lease") in a JSON text that may have failed to
// parse: nested deeper than the decoders allow, with a bad value
// elsewhere, or cut short after the string. It is how a command answers a
// leased record it cannot read (with an ack carrying an error) instead of
// leaving the lease to be renewed forever.
//
// It reads the text once, without recursion or a depth limit, and trusts
// only structure: a string is returned when the keys of the objects that
// enclose it are path, so a "lease" key nested in attrs is never taken for
// the request's. It stops at the first byte that is not JSON, and at the
// first string found at path.
func FindString(b []byte, path ...string) (string, bool) {
	if len(path) == 0 {
		return "", false
	}
	var stack []byte // '{' or '[' per open container
	// keys[d] is the key of the member being read in the object at depth
	// d+1, kept for the first len(path) depths only; ok[d] says it equals
	// path[d].
	keys := make([]bool, len(path))
	expectKey := false
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case ' ', '\t', '\r', '\n':
			i++
		case '{', '[':
			stack = append(stack, c)
			expectKey = c == '{'
			i++
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c-2 { // '{'+2 == '}', '['+2 == ']'
				return "", false
			}
			stack = stack[:len(stack)-1]
			expectKey = false
			i++
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			i++
		case ':':
			expectKey = false
			i++
		case '"':
			end := scanString(b, i)
			if end < 0 {
				return "", false
			}
			d := len(stack)
			switch {
			case expectKey && d >= 1 && d <= len(path):
				s, ok := Unquote(b[i:end])
				keys[d-1] = ok && s == path[d-1]
			case !expectKey && d == len(path) && d > 0 && onPath(stack, keys):
				return Unquote(b[i:end])
			}
			i = end
		default:
			// A number or a literal: up to the next delimiter.
			j := i
			for j < len(b) && !isDelim(b[j]) {
				j++
			}
			if j == i {
				return "", false
			}
			i = j
		}
	}
	return "", false
}

// onPath reports whether every open container is an object whose current
// key is the path's.
func onPath(stack []byte, keys []bool) bool {
	for d, c := range stack {
		if c != '{' || !keys[d] {
			return false
		}
	}
	return true
}

func isDelim(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}
