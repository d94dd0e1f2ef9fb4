// Package ascii holds the text rules that fold ASCII only, as protocols
// and SQLite do: "Цена" and "цена", "Über" and "über" stay two names.
package ascii

// Lower maps A-Z in s to a-z and leaves every other byte alone, keeping
// every byte offset (strings.ToLower folds all of Unicode, rewrites
// invalid UTF-8, and some letters change length). s itself when it has
// no upper-case ASCII letter.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// EqualFold reports whether a and b are equal but for the case of A-Z.
func EqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
