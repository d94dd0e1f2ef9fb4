package linkfind

import (
	"net/url"
	"strings"
)

// HeaderLink is one link of a Link header (RFC 8288).
type HeaderLink struct {
	Ref string // the URI reference between < and >
	Rel string // its rel parameter, lower case ("next", "preload stylesheet")
}

// LinkHeader splits a Link header value into its links: each "<URI>"
// with its parameters, links separated by commas (a comma inside <> or a
// quoted string does not separate). Parameters other than rel are read
// and dropped.
func LinkHeader(v string) []HeaderLink {
	var out []HeaderLink
	i := 0
	for i < len(v) {
		lt := strings.IndexByte(v[i:], '<')
		if lt < 0 {
			break
		}
		i += lt + 1
		gt := strings.IndexByte(v[i:], '>')
		if gt < 0 {
			break
		}
		l := HeaderLink{Ref: strings.TrimSpace(v[i : i+gt])}
		i += gt + 1
		// Parameters up to the comma that ends the link.
		for i < len(v) {
			for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
				i++
			}
			if i >= len(v) {
				break
			}
			if v[i] == ',' {
				i++
				break
			}
			if v[i] != ';' {
				// Junk: skip to the next parameter or link.
				j := strings.IndexAny(v[i:], ";,")
				if j < 0 {
					i = len(v)
					break
				}
				i += j
				continue
			}
			i++
			name, val, n := param(v[i:])
			i += n
			if strings.EqualFold(name, "rel") && l.Rel == "" {
				l.Rel = strings.ToLower(strings.Join(strings.Fields(val), " "))
			}
		}
		if !strings.Contains(l.Ref, "<") {
			out = append(out, l)
		}
	}
	return out
}

// param reads one "name=value" or "name=\"value\"" parameter (or a bare
// name) at the start of s, and how many bytes it took, stopping at the ;
// or , that ends it.
func param(s string) (name, val string, n int) {
	i := 0
	for i < len(s) && s[i] != '=' && s[i] != ';' && s[i] != ',' {
		i++
	}
	name = strings.TrimSpace(s[:i])
	if i >= len(s) || s[i] != '=' {
		return name, "", i
	}
	i++
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && s[i] == '"' {
		var b strings.Builder
		i++
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' && i+1 < len(s) {
				i++
			}
			b.WriteByte(s[i])
			i++
		}
		if i < len(s) {
			i++
		}
		return name, b.String(), i
	}
	j := i
	for i < len(s) && s[i] != ';' && s[i] != ',' {
		i++
	}
	return name, strings.TrimSpace(s[j:i]), i
}

// navigationRels are the rel values of documents a reader moves to; the
// other rels of <link> and Link headers (stylesheet, icon, preload, …) are
// resources.
var navigationRels = map[string]bool{
	"alternate": true, "amphtml": true, "author": true, "canonical": true, "chapter": true, "contents": true,
	"first": true, "help": true, "home": true, "index": true, "last": true, "license": true, "next": true,
	"prev": true, "previous": true, "section": true, "start": true, "subsection": true, "up": true,
	"archives": true, "bookmark": true, "shortlink": true, "prerender": true, "related": true,
}

// skippedRels name origins or endpoints, not things to fetch.
var skippedRels = map[string]bool{"preconnect": true, "dns-prefetch": true, "pingback": true, "webmention": true}

// relKind is the kind of a <link> or Link header by its rel words: 0 for
// one to skip.
func relKind(rel string) Kind {
	words := strings.Fields(strings.ToLower(rel))
	if len(words) == 0 {
		return Resources
	}
	skip := true
	for _, w := range words {
		if navigationRels[w] {
			return Navigation
		}
		if !skippedRels[w] {
			skip = false
		}
	}
	if skip {
		return 0
	}
	return Resources
}

// Headers calls fn for the links of a response's headers of the kinds
// wanted, in this order: each Link header link (navigation or resources
// by its rel), the URL of a Refresh header, and Content-Location. They
// resolve against the response URL u, not <base href>.
func Headers(h map[string]string, u *url.URL, kinds Kind, fn func(Link)) {
	if len(h) == 0 {
		return
	}
	if v := header(h, "link"); v != "" {
		for _, l := range LinkHeader(v) {
			if k := relKind(l.Rel); k&kinds != 0 && l.Ref != "" {
				fn(Link{Kind: k, Source: "header:Link", Ref: l.Ref, Base: u})
			}
		}
	}
	if kinds&Navigation == 0 {
		return
	}
	if ref, ok := Refresh(header(h, "refresh")); ok {
		fn(Link{Kind: Navigation, Source: "header:Refresh", Ref: ref, Base: u})
	}
	if ref := strings.TrimSpace(header(h, "content-location")); ref != "" {
		fn(Link{Kind: Navigation, Source: "header:Content-Location", Ref: ref, Base: u})
	}
}

// header returns a header's value, whatever the case of its name.
func header(h map[string]string, name string) string {
	if v, ok := h[name]; ok {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
