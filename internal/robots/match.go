package robots

import (
	"net/url"
	"strings"
)

// Allowed reports whether u may be fetched: its escaped path and query
// (the fragment aside) are matched against the rules. A nil *Rules allows
// everything.
func (r *Rules) Allowed(u *url.URL) bool {
	if r == nil {
		return true
	}
	return r.allows(target(u))
}

// allows decides for a target as target returns it.
func (r *Rules) allows(t string) bool {
	if t == "/robots.txt" {
		return true // RFC 9309 §2.2.2: implicitly allowed
	}
	for _, x := range r.rules { // most specific first
		if matches(x.pattern, t) {
			return x.allow
		}
	}
	return true
}

// target is what the rules are matched against: u's escaped path ("/"
// when empty), then '?' and its query when it has one, percent-normalized.
func target(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return normalizeTarget(p)
}

// matches reports whether a normalized pattern matches the start of t (all
// of t when the pattern ends in '$'), '*' in it matching any run of octets.
//
// The pattern is cut at its '*'s into literal runs. The first must start
// t; each later one is searched for after the previous, leftmost first;
// with '$', the last must end t. Taking the leftmost place for each run
// never loses a match (it leaves the most of t to the runs after), so no
// backtracking is needed: each run costs one strings.Index over what is
// left of t.
func matches(pattern, t string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	lit, rest, wild := strings.Cut(pattern, "*")
	if !strings.HasPrefix(t, lit) {
		return false
	}
	t = t[len(lit):]
	if !wild {
		return !anchored || t == ""
	}
	for {
		lit, rest, wild = strings.Cut(rest, "*")
		if !wild { // the last run
			if anchored {
				return strings.HasSuffix(t, lit)
			}
			return strings.Contains(t, lit)
		}
		i := strings.Index(t, lit)
		if i < 0 {
			return false
		}
		t = t[i+len(lit):]
	}
}
