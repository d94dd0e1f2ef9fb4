package cfetch

// containsFoldASCII reports whether b contains word (lower-case ASCII
// letters) in any mix of ASCII upper and lower case. It allocates nothing:
// bytes.ToLower on a page copied it and decoded every UTF-8 rune, a
// quarter of cfetch's CPU on pages with a "£" in them.
func containsFoldASCII(b []byte, word string) bool {
	if word == "" {
		return true
	}
	first := word[0]
	for i := 0; i+len(word) <= len(b); i++ {
		if b[i]|0x20 != first {
			continue
		}
		j := 1
		for j < len(word) && b[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}
