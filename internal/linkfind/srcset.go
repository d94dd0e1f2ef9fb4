package linkfind

import "strings"

// Srcset returns the URLs of the candidates of a srcset (or imagesrcset)
// attribute, in order, as the HTML standard's "parse a srcset attribute"
// splits them: candidates separated by commas, each a URL (which may hold
// commas itself) and optional descriptors ("2x", "300w"); a URL ending in
// commas has them removed. Empty candidates are skipped.
func Srcset(s string) []string {
	var out []string
	i := 0
	for i < len(s) {
		// Skip white space and commas before a candidate.
		for i < len(s) && (isSpace(s[i]) || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			break
		}
		start := i
		for i < len(s) && !isSpace(s[i]) {
			i++
		}
		u := s[start:i]
		if trimmed := strings.TrimRight(u, ","); len(trimmed) < len(u) {
			// "a.png," : no descriptors follow.
			if trimmed != "" {
				out = append(out, trimmed)
			}
			continue
		}
		out = append(out, u)
		// Skip the descriptors, to the comma that ends the candidate
		// (a comma inside parentheses does not).
		depth := 0
		for i < len(s) {
			c := s[i]
			i++
			switch {
			case c == '(':
				depth++
			case c == ')' && depth > 0:
				depth--
			case c == ',' && depth == 0:
				goto next
			}
		}
	next:
	}
	return out
}

// isSpace is the HTML standard's ASCII white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
