package htmlparse

import (
	"cmp"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// attributes reads the attributes of a start tag from s[i] to its '>'.
func (p *fastParser) attributes(i int) (attrs []html.Attribute, selfClosing bool, end int, ok bool) {
	s := p.s
	start := len(p.attrs)
	for {
		for i < len(s) && isSpaceByte(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, false, 0, false
		}
		switch s[i] {
		case '>':
			attrs = p.attrs[start:len(p.attrs):len(p.attrs)]
			if len(attrs) == 0 {
				attrs = nil
			}
			return attrs, selfClosing, i + 1, true
		case '/':
			if i+1 < len(s) && s[i+1] == '>' {
				selfClosing = true
				i++
				continue
			}
			return nil, false, 0, false
		}
		// The attribute's name.
		j := i
		lower := true
		for j < len(s) {
			c := s[j]
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':' || c == '.' || c == '@' {
				j++
				continue
			}
			if c >= 'A' && c <= 'Z' {
				lower = false
				j++
				continue
			}
			break
		}
		if j == i || j >= len(s) || !(isSpaceByte(s[j]) || s[j] == '=' || s[j] == '>' || s[j] == '/') {
			return nil, false, 0, false
		}
		key := s[i:j]
		if !lower {
			key = strings.ToLower(key)
		}
		i = j
		for i < len(s) && isSpaceByte(s[i]) {
			i++
		}
		val := ""
		if i < len(s) && s[i] == '=' {
			i++
			for i < len(s) && isSpaceByte(s[i]) {
				i++
			}
			if i >= len(s) {
				return nil, false, 0, false
			}
			switch q := s[i]; q {
			case '"', '\'':
				k := strings.IndexByte(s[i+1:], q)
				if k < 0 {
					return nil, false, 0, false
				}
				val = s[i+1 : i+1+k]
				i += k + 2
				if i < len(s) && !(isSpaceByte(s[i]) || s[i] == '>' || s[i] == '/') {
					return nil, false, 0, false
				}
			default:
				k := i
				// An unquoted value runs to white space or '>': quotes,
				// '<', '=' and '`' in it are errors HTML reads as text.
				for k < len(s) && !isSpaceByte(s[k]) && s[k] != '>' {
					k++
				}
				if k == i {
					return nil, false, 0, false
				}
				val = s[i:k]
				i = k
			}
			if strings.IndexByte(val, '&') >= 0 {
				var ok bool
				if val, ok = unescapeAttr(val); !ok {
					return nil, false, 0, false
				}
			}
		}
		for _, a := range p.attrs[start:] {
			if a.Key == key {
				return nil, false, 0, false // duplicate attribute
			}
		}
		p.attrs = append(p.attrs, html.Attribute{Key: key, Val: val})
	}
}

// unescapeAttr decodes the character references of an attribute value as
// x/net/html does in an attribute, which differs from text (where
// html.UnescapeString decodes them) for a named reference without its
// semicolon: in an attribute it is decoded only when the whole name is one
// of the legacy references that may go without (amp, lt, copy, …) and no
// '=' follows, so "?a=1&copy=2" and "&ampx" stay as written. ok is false
// for what it leaves to x/net/html: an unknown name with a semicolon.
func unescapeAttr(v string) (string, bool) {
	var b strings.Builder
	last := 0 // v[last:] is not written yet; its references decode as in text
	for i := 0; i < len(v); i++ {
		if v[i] != '&' {
			continue
		}
		j := i + 1
		if j < len(v) && v[j] == '#' {
			continue // numeric references read the same everywhere
		}
		for j < len(v) && isAlnumByte(v[j]) {
			j++
		}
		if j == i+1 {
			continue // a lone '&'
		}
		if j < len(v) && v[j] == ';' {
			ref := v[i : j+1]
			if dec := html.UnescapeString(ref); dec == ref || strings.Contains(dec, ";") {
				return "", false // unknown, or a prefix match
			}
			i = j
			continue
		}
		if (j < len(v) && v[j] == '=') || !legacyEntity(v[i:j]) {
			// Kept as written: decode what is before it.
			b.Grow(len(v))
			b.WriteString(html.UnescapeString(v[last:i]))
			b.WriteString(v[i:j])
			last = j
		}
		i = j - 1
	}
	if last == 0 {
		return html.UnescapeString(v), true
	}
	b.WriteString(html.UnescapeString(v[last:]))
	return b.String(), true
}

// legacyEntity reports whether ref ("&name", no semicolon) is, whole, a
// character reference that may go without its semicolon: then
// html.UnescapeString decodes it to a character that is no letter or
// digit, where for any other name it leaves it, or decodes a prefix and
// leaves the letters after it.
func legacyEntity(ref string) bool {
	dec := html.UnescapeString(ref)
	if dec == ref {
		return false
	}
	for k := 0; k < len(dec); k++ {
		if isAlnumByte(dec[k]) {
			return false
		}
	}
	return true
}

func isAlnumByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// sortAttrs sorts attributes as x/net/html's attrCompare does.
func sortAttrs(attrs []html.Attribute) {
	if len(attrs) < 2 {
		return
	}
	slices.SortFunc(attrs, func(a, b html.Attribute) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Val, b.Val))
	})
}
