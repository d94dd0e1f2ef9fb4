package htmlparse

import "strings"

// normalizeNewlines returns s with every CR LF pair and every lone CR made
// one LF: the HTML spec's "normalize newlines" step, which x/net/html's
// tokenizer applies to text, attribute values, comments and doctypes, and
// which leaves the tree unchanged wherever a CR is only white space (it is
// white space to the tokenizer everywhere else). A page without a CR is
// returned as it is, sharing its memory.
func normalizeNewlines(s string) string {
	i := strings.IndexByte(s, '\r')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		b.WriteByte('\n')
		s = s[i+1:]
		if s != "" && s[0] == '\n' {
			s = s[1:]
		}
		i = strings.IndexByte(s, '\r')
	}
	b.WriteString(s)
	return b.String()
}
