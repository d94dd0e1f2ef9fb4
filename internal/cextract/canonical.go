package cextract

import (
	"net/url"
	"sort"
	"strings"
)

// canonicalizeURL rewrites u in canonical form for link rules with
// canonicalize: true. It is a variable so that the project's shared
// canonicalization (internal/fingerprint, written separately) can replace
// it in one place once it is settled; until then this is a small local
// version of w3lib's canonicalize_url:
//
//   - the fragment is dropped (ResolveLink has already lower-cased the
//     host, written IDN hosts in punycode and dropped the default port);
//   - percent-escapes of unreserved characters (letters, digits, - . _ ~)
//     in the path are decoded, the others written in upper case;
//   - query arguments are sorted by name, then value (a stable sort), blank
//     values kept, and each re-encoded as application/x-www-form-urlencoded
//     ("?b=2&a=1&a" becomes "?a=&a=1&b=2", a space "+").
var canonicalizeURL = canonicalize

func canonicalize(u *url.URL) {
	u.Fragment, u.RawFragment = "", ""
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if p := normalizeEscapes(u.EscapedPath()); p != u.EscapedPath() {
		if dec, err := url.PathUnescape(p); err == nil {
			u.Path, u.RawPath = dec, p
			if u.EscapedPath() != p {
				u.RawPath = ""
			}
		}
	}
	if u.RawQuery == "" {
		u.ForceQuery = false
		return
	}
	type kv struct{ k, v string }
	var args []kv
	for _, part := range strings.Split(u.RawQuery, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		args = append(args, kv{queryUnescape(k), queryUnescape(v)})
	}
	sort.SliceStable(args, func(i, j int) bool {
		return args[i].k < args[j].k || args[i].k == args[j].k && args[i].v < args[j].v
	})
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = url.QueryEscape(a.k) + "=" + url.QueryEscape(a.v)
	}
	u.RawQuery = strings.Join(parts, "&")
	u.ForceQuery = false
}

// queryUnescape decodes a form-encoded query part, keeping what does not
// decode as it is.
func queryUnescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// normalizeEscapes decodes the percent-escapes of unreserved characters
// and writes the others in upper case.
func normalizeEscapes(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			b.WriteByte(p[i])
			continue
		}
		c := unhex(p[i+1])<<4 | unhex(p[i+2])
		if c < 0x80 && (isIdentByte(c) && c != '-' || c == '-' || c == '.' || c == '~') {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(p[i+1 : i+3]))
		}
		i += 2
	}
	return b.String()
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
