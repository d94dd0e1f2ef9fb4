package linkfind

import "strings"

// Refresh returns the URL of a Refresh header or <meta http-equiv=refresh>
// content ("5; url=/next", "0;URL='/next'", "3, /next"), read as the HTML
// standard's shared declarative refresh steps read it; ok is false when it
// names no URL (a refresh of the page itself) or is not a refresh.
func Refresh(content string) (ref string, ok bool) {
	s := strings.TrimLeft(content, " \t\n\f\r")
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return "", false
	}
	s = strings.TrimLeft(s[i:], " \t\n\f\r")
	if s == "" {
		return "", false
	}
	if s[0] != ';' && s[0] != ',' {
		return "", false
	}
	s = strings.TrimLeft(s[1:], " \t\n\f\r")
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		rest := strings.TrimLeft(s[3:], " \t\n\f\r")
		if strings.HasPrefix(rest, "=") {
			s = strings.TrimLeft(rest[1:], " \t\n\f\r")
		}
	}
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		s = s[1:]
		if j := strings.IndexByte(s, q); j >= 0 {
			s = s[:j]
		}
	}
	s = strings.TrimRight(s, " \t\n\f\r")
	return s, s != ""
}
