package linkfind

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// CSSRef is one URL of a stylesheet.
type CSSRef struct {
	Ref    string
	Import bool // from @import (else url(), or a string in image-set())
}

// CSS returns the URLs a stylesheet (or a style attribute's declarations)
// points at, in order: every url(…) token, the string or url() of each
// @import, and the strings of image-set(), escapes decoded. It reads the
// text with tdewolff/parse's CSS tokenizer (CSS Syntax Level 3), so
// comments, strings and escapes are what a browser takes them for.
func CSS(text string) []CSSRef {
	var out []CSSRef
	l := css.NewLexer(parse.NewInputString(text))
	importing := false // after @import, before its first string or url
	imageSet := 0      // depth of parentheses inside image-set(…)
	for {
		tt, data := l.Next()
		switch tt {
		case css.ErrorToken:
			return out
		case css.AtKeywordToken:
			importing = bytes.EqualFold(data, []byte("@import"))
			continue
		case css.URLToken:
			if ref := urlToken(data); ref != "" {
				out = append(out, CSSRef{Ref: ref, Import: importing})
			}
			importing = false
			continue
		case css.StringToken:
			if importing || imageSet > 0 {
				if ref := unquoteCSS(data); ref != "" {
					out = append(out, CSSRef{Ref: ref, Import: importing})
				}
			}
			importing = false
			continue
		case css.FunctionToken:
			if imageSet > 0 {
				imageSet++
			} else if f := bytes.ToLower(data); bytes.Equal(f, []byte("image-set(")) || bytes.Equal(f, []byte("-webkit-image-set(")) {
				imageSet = 1
			}
		case css.LeftParenthesisToken:
			if imageSet > 0 {
				imageSet++
			}
		case css.RightParenthesisToken:
			if imageSet > 0 {
				imageSet--
			}
		case css.WhitespaceToken, css.CommentToken:
			continue
		}
		if tt == css.SemicolonToken || tt == css.LeftBraceToken {
			importing = false
		}
	}
}

// urlToken returns the URL of a url(…) token: url(x), url( "x" ), URL('x').
func urlToken(data []byte) string {
	i := bytes.IndexByte(data, '(')
	if i < 0 {
		return ""
	}
	s := data[i+1:]
	s = bytes.TrimSuffix(s, []byte(")"))
	s = bytes.Trim(s, " \t\n\r\f")
	if len(s) > 0 && (s[0] == '"' || s[0] == '\'') {
		return unquoteCSS(s)
	}
	return unescapeCSS(string(s))
}

// unquoteCSS returns the value of a CSS string token, quotes removed and
// escapes decoded; an escaped newline continues the string.
func unquoteCSS(s []byte) string {
	if len(s) == 0 {
		return ""
	}
	q := s[0]
	s = s[1:]
	if len(s) > 0 && s[len(s)-1] == q {
		s = s[:len(s)-1]
	}
	return unescapeCSS(string(s))
}

// unescapeCSS decodes CSS escapes: \ and 1 to 6 hex digits (and one white
// space after them), \ and a newline (nothing), \ and any other character
// (that character).
func unescapeCSS(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		j := i
		for j < len(s) && j-i < 6 && isHex(s[j]) {
			j++
		}
		switch {
		case j > i:
			n, _ := strconv.ParseUint(s[i:j], 16, 32)
			r := rune(n)
			if r == 0 || r > utf8.MaxRune || (r >= 0xd800 && r <= 0xdfff) {
				r = utf8.RuneError
			}
			b.WriteRune(r)
			if j < len(s) && isSpace(s[j]) {
				j++
			}
			i = j - 1
		case s[i] == '\n' || s[i] == '\f':
		case s[i] == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// Stylesheet calls fn for the links of a stylesheet served on its own
// (a text/css response), resolved against its URL: Source "css:url" or
// "css:@import", kind Resources.
func Stylesheet(text string, u *url.URL, fn func(Link)) {
	for _, r := range CSS(text) {
		src := "css:url"
		if r.Import {
			src = "css:@import"
		}
		fn(Link{Kind: Resources, Source: src, Ref: r.Ref, Base: u})
	}
}
