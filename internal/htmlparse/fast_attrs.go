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
				for k < len(s) && !isSpaceByte(s[k]) && s[k] != '>' {
					switch s[k] {
					case '"', '\'', '<', '=', '`':
						return nil, false, 0, false
					}
					k++
				}
				if k == i {
					return nil, false, 0, false
				}
				val = s[i:k]
				i = k
			}
			if strings.IndexByte(val, '&') >= 0 {
				if !attrEntitiesSafe(val) {
					return nil, false, 0, false
				}
				val = html.UnescapeString(val)
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

// attrEntitiesSafe reports whether the character references of an
// attribute value decode the same in an attribute as in text (where
// html.UnescapeString decodes them): every named reference is complete,
// with its semicolon, and known.
func attrEntitiesSafe(v string) bool {
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
		if j >= len(v) || v[j] != ';' {
			return false
		}
		ref := v[i : j+1]
		if dec := html.UnescapeString(ref); dec == ref || strings.Contains(dec, ";") {
			return false // unknown, or a prefix match
		}
		i = j
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
