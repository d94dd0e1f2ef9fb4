package fingerprint

// SafePath and SafeQuery write the path and the query of a URL as w3lib's
// safe_url_string does for http(s) with its default UTF-8 encoding: every
// byte a URL cannot hold (spaces, controls, non-ASCII as UTF-8, quotes,
// brackets, …) percent-encoded, existing %XX escapes kept as they are. So
// "q=a b" is sent as "q=a%20b" and "q=ä" as "q=%C3%A4", as browsers and
// Scrapy send them. cextract writes its links with them, cfetch the URLs it
// requests.

// SafePath percent-encodes what a path cannot hold.
func SafePath(path string) string { return percentEncode(path, pathSafe) }

// SafeQuery percent-encodes what a query cannot hold (also "'", as w3lib).
func SafeQuery(query string) string { return percentEncode(query, querySafe) }

// byteSet is a set of bytes that percentEncode leaves alone.
type byteSet [256]bool

func newByteSet(chars string) *byteSet {
	var s byteSet
	for i := 0; i < len(chars); i++ {
		s[chars[i]] = true
	}
	return &s
}

// The characters w3lib's safe_url_string keeps in the path and, for http(s),
// in the query: RFC 3986's unreserved characters, sub-delims, ":", "@", "/",
// "?" and "%" (so existing escapes stay as they are); the query also escapes
// "'".
const unreservedChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

var (
	pathSafe  = newByteSet(unreservedChars + "!$&'()*+,;=:@/?%")
	querySafe = newByteSet(unreservedChars + "!$&()*+,;=:@/?%")
)

// percentEncode writes each byte of s outside safe as %XX (upper case).
func percentEncode(s string, safe *byteSet) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !safe[s[i]] {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; safe[c] {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}
