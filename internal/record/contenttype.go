package record

import (
	"strings"

	"github.com/crawlutils/crawlutils/internal/ascii"
)

// ContentType reads a Content-Type header as browsers do (the Fetch
// standard's "extract a MIME type"): the lower-case media type and its
// charset parameter, unquoted. value may hold several types — repeated
// headers joined with ", ", as a response record has them (a server's
// default and the page's own): the last valid one counts, and keeps the
// charset an earlier one of the same type gave when it has none itself.
// Parameters are read leniently: a malformed one elsewhere in the header
// does not lose the charset. media is "" when no type is valid.
func ContentType(value string) (media, charset string) {
	for _, v := range splitHeaderList(value) {
		m, cs := parseMediaType(v)
		if m == "" || m == "*/*" {
			continue
		}
		if m != media {
			media, charset = m, cs
		} else if cs != "" {
			charset = cs
		}
	}
	return media, charset
}

// IsHTML reports whether a media type (as ContentType gives it) is HTML:
// text/html or XHTML, the types a page is parsed as HTML for.
func IsHTML(media string) bool {
	return media == "text/html" || media == "application/xhtml+xml"
}

// Untyped reports whether a media type (as ContentType gives it) says
// nothing of the content, so that the body's bytes must tell it, as
// Scrapy's responsetypes reads them: none, application/octet-stream (what
// python3 -m http.server and many servers send for a file without an
// extension), binary/octet-stream (Amazon S3's default), and the types
// that mean "unknown".
func Untyped(media string) bool {
	switch media {
	case "", "application/octet-stream", "binary/octet-stream", "application/unknown", "unknown/unknown", "*/*":
		return true
	}
	return false
}

// parseMediaType reads one media type: its lower-case type/subtype ("" when
// it is not one) and its first charset parameter.
func parseMediaType(v string) (media, charset string) {
	parts := strings.Split(v, ";")
	media = ascii.Lower(strings.TrimSpace(parts[0]))
	typ, sub, ok := strings.Cut(media, "/")
	if !ok || !isToken(typ) || !isToken(sub) {
		return "", ""
	}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "charset") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		charset = strings.TrimSpace(v)
		break
	}
	return media, charset
}

// splitHeaderList splits a header value at the commas outside quoted
// strings.
func splitHeaderList(v string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && quoted:
			i++
		case c == ',' && !quoted:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// isToken reports whether s is a non-empty HTTP token (RFC 9110).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}
