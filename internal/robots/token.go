package robots

import "strings"

// ProductToken returns the product token of a User-Agent string, the name
// robots.txt groups are chosen by, lower-cased: its leading run of
// letters, digits, '_' and '-' ("crawlutils" for "CrawlUtils/1.0
// (+https://…)"); "" when it starts with none.
func ProductToken(ua string) string {
	ua = strings.TrimSpace(ua)
	n := 0
	for n < len(ua) && isTokenChar(ua[n]) {
		n++
	}
	return strings.ToLower(ua[:n])
}

// ValidToken reports whether s is a product token a crawler can be named
// by: one or more letters, digits, '_' and '-' (RFC 9309 §2.2.1 allows
// letters, '_' and '-'; digits are allowed too, as in "bot2").
func ValidToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTokenChar(s[i]) {
			return false
		}
	}
	return true
}

func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
