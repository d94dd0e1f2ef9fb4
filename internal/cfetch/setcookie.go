package cfetch

import (
	"net/http"
	"strings"
	"time"
)

// Limits of RFC 6265bis (draft-ietf-httpbis-rfc6265bis §5.6), as
// browsers apply them.
const (
	maxCookieNameValue = 4096               // a cookie's name and value together, in bytes
	maxCookieAttrValue = 1024               // one attribute's value, in bytes
	maxCookieAge       = 400 * 24 * 60 * 60 // the longest Max-Age or Expires kept, in seconds
)

// parseSetCookie reads one Set-Cookie field value as browsers and curl
// read it (RFC 6265 §5.2, as RFC 6265bis §5.6 refines it), where Go's
// http.ParseSetCookie drops many that servers send: a value is any bytes
// but control characters and ';' (a '"', '\', a space, a comma or UTF-8
// inside it included), a name may be empty (`Set-Cookie: token`), and
// Expires is read by the cookie-date algorithm (§5.1.1: "09-Jun-21" is
// 2021, and a date a cookie is deleted with is understood). A quoted
// value keeps its quotes: they are part of what the server reads back.
// It reports false for a line a browser ignores entirely.
//
// The Max-Age and Expires of the result are what cookiejar.Jar reads:
// MaxAge -1 for a cookie to delete now, at most 400 days either way.
func parseSetCookie(line string, now time.Time) (*http.Cookie, bool) {
	for i := 0; i < len(line); i++ {
		if b := line[i]; b < 0x20 && b != '\t' || b == 0x7f {
			return nil, false
		}
	}
	pair, attrs, _ := strings.Cut(line, ";")
	name, value, ok := strings.Cut(pair, "=")
	if !ok {
		name, value = "", pair
	}
	c := &http.Cookie{Name: trimWSP(name), Value: trimWSP(value)}
	switch {
	case c.Name == "" && c.Value == "",
		len(c.Name)+len(c.Value) > maxCookieNameValue,
		c.Name == "" && (hasPrefixFold(c.Value, "__Secure-") || hasPrefixFold(c.Value, "__Host-")):
		return nil, false
	}
	for attrs != "" {
		var av string
		av, attrs, _ = strings.Cut(attrs, ";")
		k, v, _ := strings.Cut(av, "=")
		k, v = trimWSP(k), trimWSP(v)
		if len(v) > maxCookieAttrValue {
			continue
		}
		switch strings.ToLower(k) {
		case "expires":
			if t, ok := cookieDate(v); ok {
				c.Expires = t
				if limit := now.Add(maxCookieAge * time.Second); t.After(limit) {
					c.Expires = limit
				}
			}
		case "max-age":
			if age, ok := maxAge(v); ok {
				c.MaxAge = age
			}
		case "domain":
			if v != "" {
				c.Domain = v // cookiejar drops a leading dot and lower-cases it
			}
		case "path":
			c.Path = ""
			if strings.HasPrefix(v, "/") {
				c.Path = v
			}
		case "secure":
			c.Secure = true
		case "httponly":
			c.HttpOnly = true
		case "samesite":
			switch strings.ToLower(v) {
			case "strict":
				c.SameSite = http.SameSiteStrictMode
			case "lax":
				c.SameSite = http.SameSiteLaxMode
			case "none":
				c.SameSite = http.SameSiteNoneMode
			default:
				c.SameSite = http.SameSiteDefaultMode
			}
		}
	}
	return c, true
}

// maxAge reads a Max-Age value (RFC 6265 §5.2.2) as http.Cookie.MaxAge
// holds it: -1 for a cookie to delete now (0 or less), else the seconds,
// at most 400 days.
func maxAge(v string) (int, bool) {
	digits := strings.TrimPrefix(v, "-")
	if digits == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
		n = min(n*10+int(digits[i]-'0'), maxCookieAge)
	}
	if n == 0 || len(digits) < len(v) {
		return -1, true
	}
	return n, true
}

// cookieDate reads a cookie's Expires as RFC 6265 §5.1.1 says browsers
// read it: the first time (hh:mm:ss), day of the month (1 or 2 digits),
// month (a name, by its first three letters) and year (2 to 4 digits)
// among tokens split at delimiters, whatever their order and whatever
// follows them in a token; a year 70–99 is 19xx, 0–69 is 20xx. It
// reports false where the algorithm fails: a part missing, out of range,
// a year before 1601, a date that does not exist.
func cookieDate(s string) (time.Time, bool) {
	var (
		haveTime, haveDay, haveMonth, haveYear bool
		hms                                    [3]int
		day, year                              int
		month                                  time.Month
	)
	for tok := range strings.FieldsFuncSeq(s, isCookieDateDelimiter) {
		if !haveTime {
			if t, ok := cookieTime(tok); ok {
				hms, haveTime = t, true
				continue
			}
		}
		if !haveDay {
			if d, ok := leadingDigits(tok, 1, 2); ok {
				day, haveDay = d, true
				continue
			}
		}
		if !haveMonth {
			if m, ok := cookieMonth(tok); ok {
				month, haveMonth = m, true
				continue
			}
		}
		if !haveYear {
			if y, ok := leadingDigits(tok, 2, 4); ok {
				year, haveYear = y, true
				continue
			}
		}
	}
	switch {
	case year >= 70 && year <= 99:
		year += 1900
	case year <= 69:
		year += 2000
	}
	if !haveTime || !haveDay || !haveMonth || !haveYear ||
		day < 1 || day > 31 || year < 1601 || hms[0] > 23 || hms[1] > 59 || hms[2] > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, month, day, hms[0], hms[1], hms[2], 0, time.UTC)
	if t.Day() != day { // 31 February
		return time.Time{}, false
	}
	return t, true
}

// isCookieDateDelimiter: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
func isCookieDateDelimiter(r rune) bool {
	return r == '\t' || r >= 0x20 && r <= 0x2f || r >= 0x3b && r <= 0x40 || r >= 0x5b && r <= 0x60 || r >= 0x7b && r <= 0x7e
}

// leadingDigits reads the lo to hi digits tok starts with, which must
// be followed by its end or a byte that is no digit.
func leadingDigits(tok string, lo, hi int) (int, bool) {
	n, i := 0, 0
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		if i == hi {
			return 0, false
		}
		n = n*10 + int(tok[i]-'0')
	}
	return n, i >= lo
}

// cookieTime reads hms-time (1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT) at the
// start of tok, followed by its end or a byte that is no digit.
func cookieTime(tok string) ([3]int, bool) {
	var t [3]int
	for i := range t {
		if i > 0 {
			if tok == "" || tok[0] != ':' {
				return t, false
			}
			tok = tok[1:]
		}
		j := 0
		for ; j < len(tok) && tok[j] >= '0' && tok[j] <= '9'; j++ {
			if j == 2 {
				return t, false
			}
			t[i] = t[i]*10 + int(tok[j]-'0')
		}
		if j == 0 {
			return t, false
		}
		tok = tok[j:]
	}
	return t, true
}

// cookieMonth reads a month by the first three letters of tok.
func cookieMonth(tok string) (time.Month, bool) {
	if len(tok) < 3 {
		return 0, false
	}
	i := strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(tok[:3]))
	if i < 0 || i%3 != 0 {
		return 0, false
	}
	return time.Month(i/3 + 1), true
}

func trimWSP(s string) string { return strings.Trim(s, " \t") }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
