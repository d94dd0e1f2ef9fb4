package httpcache

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// parseCacheControl parses Cache-Control header values into directives
// (lower-case names; values unquoted; "" for a directive without one).
func parseCacheControl(values []string) map[string]string {
	var m map[string]string
	for _, v := range values {
		for len(v) > 0 {
			var part string
			part, v = nextDirective(v)
			name, val, _ := strings.Cut(part, "=")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			val = strings.TrimSpace(val)
			if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
				val = strings.ReplaceAll(val[1:len(val)-1], `\`, "")
			}
			if m == nil {
				m = map[string]string{}
			}
			if _, dup := m[name]; !dup {
				m[name] = val
			}
		}
	}
	return m
}

// nextDirective splits off the first comma-separated directive, commas
// inside quotes included in it.
func nextDirective(s string) (string, string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case '\\':
			if quoted {
				i++
			}
		case ',':
			if !quoted {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// seconds reads a delta-seconds directive value.
func seconds(cc map[string]string, name string) (time.Duration, bool) {
	v, ok := cc[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(min(n, int64(maxFreshness/time.Second))) * time.Second, true
}

// maxFreshness caps every freshness lifetime (and stands for "forever").
const maxFreshness = 365 * 24 * time.Hour

// rfcStorable says whether a response may be stored (as Scrapy's
// RFC2616Policy decides it): not with no-store; yes with an explicit
// lifetime (max-age, Expires); yes for permanent redirects and multiple
// choices; for 200, 203 and 401 only with a validator (ETag,
// Last-Modified); not otherwise.
func rfcStorable(reqHeader http.Header, status int, h http.Header) bool {
	cc := parseCacheControl(h.Values("Cache-Control"))
	if _, ok := cc["no-store"]; ok {
		return false
	}
	if _, ok := parseCacheControl(reqHeader.Values("Cache-Control"))["no-store"]; ok {
		return false
	}
	switch {
	case status == http.StatusNotModified:
		return false
	case cc["max-age"] != "" || h.Get("Expires") != "":
		return true
	case status == 300 || status == 301 || status == 308:
		return true
	case status == 200 || status == 203 || status == 401:
		return h.Get("Last-Modified") != "" || h.Get("ETag") != ""
	}
	return false
}

// rfcFresh says whether a stored response may be used without asking the
// server (RFC 9111 §4.2, for a private cache).
func rfcFresh(e *Entry, reqHeader http.Header, now time.Time) bool {
	cc := parseCacheControl(e.Header.Values("Cache-Control"))
	rcc := parseCacheControl(reqHeader.Values("Cache-Control"))
	if _, ok := rcc["no-cache"]; ok {
		return false
	}
	if _, ok := cc["no-cache"]; ok {
		return false
	}
	lifetime := freshnessLifetime(e, cc)
	age := currentAge(e, now)
	if v, ok := seconds(rcc, "max-age"); ok {
		lifetime = min(lifetime, v)
	}
	if v, ok := seconds(rcc, "min-fresh"); ok {
		age += v
	}
	if _, must := cc["must-revalidate"]; !must {
		if v, ok := rcc["max-stale"]; ok {
			if v == "" {
				return true
			}
			if d, ok := seconds(rcc, "max-stale"); ok {
				lifetime += d
			}
		}
	}
	return age < lifetime
}

// freshnessLifetime is max-age, else Expires minus Date, else nothing.
// RFC 9111 §4.2.2 lets a cache guess a lifetime where the server gave
// none (Scrapy's RFC2616Policy takes a tenth of the time since
// Last-Modified, and a year for permanent redirects); a crawler does not:
// a static file server sends a Last-Modified years old and no
// Cache-Control, and a guess would keep every page "fresh" for months.
func freshnessLifetime(e *Entry, cc map[string]string) time.Duration {
	if v, ok := seconds(cc, "max-age"); ok {
		return v
	}
	date := e.StoredAt
	if d, err := http.ParseTime(e.Header.Get("Date")); err == nil {
		date = d
	}
	if exp := e.Header.Get("Expires"); exp != "" {
		t, err := http.ParseTime(exp)
		if err != nil {
			return 0 // an invalid Expires means already expired
		}
		return min(max(t.Sub(date), 0), maxFreshness)
	}
	return 0
}

// currentAge is the age of a stored response at now (RFC 9111 §4.2.3, with
// the time it was stored as both request and response time).
func currentAge(e *Entry, now time.Time) time.Duration {
	var age time.Duration
	if d, err := http.ParseTime(e.Header.Get("Date")); err == nil && e.StoredAt.After(d) {
		age = e.StoredAt.Sub(d)
	}
	if a, err := strconv.ParseInt(strings.TrimSpace(e.Header.Get("Age")), 10, 64); err == nil && a > 0 {
		age = max(age, time.Duration(min(a, int64(maxFreshness/time.Second)))*time.Second)
	}
	return age + max(now.Sub(e.StoredAt), 0)
}
