package fingerprint

// SafePath and SafeQuery write the path and the query of a URL as w3lib's
// safe_url_string does for http(s) with its default UTF-8 encoding: every
// byte a URL cannot hold (spaces, controls, non-ASCII as UTF-8, quotes,
// brackets, …) percent-encoded, existing %XX escapes kept as they are. So
// "q=a b" is sent as "q=a%20b" and "q=ä" as "q=%C3%A4", as browsers and
// Scrapy send them. cextract writes its links with them, cfetch the URLs it
// requests.

// SafePath percent-encodes what a path cannot hold.
func SafePath(path string) string { return quote(path, pathSafe) }

// SafeQuery percent-encodes what a query cannot hold (also "'", as w3lib).
func SafeQuery(query string) string { return quote(query, querySafe) }

// The characters w3lib's safe_url_string keeps in the path and, for http(s),
// in the query: RFC 3986's unreserved characters (newSafe's), sub-delims,
// ":", "@", "/", "?" and "%" (so existing escapes stay as they are); the
// query also escapes "'".
var (
	pathSafe  = newSafe("!$&'()*+,;=:@/?%")
	querySafe = newSafe("!$&()*+,;=:@/?%")
)
