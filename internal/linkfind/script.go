package linkfind

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// maxGuesses bounds the URL-looking strings taken from one script or
// attribute, so that a page of a million strings cannot flood the crawl.
const maxGuesses = 1000

// JSStrings returns the string literals (and template literals without
// substitutions) of JavaScript code that look like URLs (LooksLikeURL), in
// order. The code is read by tdewolff/parse's JavaScript tokenizer, never
// run; a / after a value is a division, elsewhere a regular expression.
func JSStrings(code string) []string {
	var out []string
	l := js.NewLexer(parse.NewInputString(code))
	prevValue := false // the last token ends a value: a / after it divides
	for len(out) < maxGuesses {
		tt, data := l.Next()
		switch {
		case tt == js.ErrorToken:
			return out
		case tt == js.WhitespaceToken || tt == js.LineTerminatorToken || tt == js.CommentToken || tt == js.CommentLineTerminatorToken:
			continue
		case (tt == js.DivToken || tt == js.DivEqToken) && !prevValue:
			if tt, _ = l.RegExp(); tt == js.ErrorToken {
				return out
			}
			prevValue = true
			continue
		case tt == js.StringToken:
			if s, ok := unquoteJS(string(data)); ok && LooksLikeURL(s) {
				out = append(out, s)
			}
		case tt == js.TemplateToken:
			if s := string(data); len(s) >= 2 {
				if s = s[1 : len(s)-1]; !strings.ContainsAny(s, `\$`) && LooksLikeURL(s) {
					out = append(out, s)
				}
			}
		}
		prevValue = tt == js.StringToken || tt == js.TemplateToken || tt == js.TemplateEndToken || tt == js.RegExpToken ||
			js.IsNumeric(tt) || js.IsIdentifier(tt) || tt == js.CloseParenToken || tt == js.CloseBracketToken ||
			tt == js.CloseBraceToken || tt == js.PrivateIdentifierToken || tt == js.ThisToken || tt == js.IncrToken || tt == js.DecrToken
	}
	return out
}

// unquoteJS decodes a JavaScript string literal with its quotes.
func unquoteJS(lit string) (string, bool) {
	if len(lit) < 2 {
		return "", false
	}
	s := lit[1 : len(lit)-1]
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b', 'f', 'v', '0':
			b.WriteByte(' ')
		case '\n':
		case 'x', 'u':
			n := 2
			if c == 'u' {
				n = 4
				if i+1 < len(s) && s[i+1] == '{' {
					end := strings.IndexByte(s[i:], '}')
					if end < 0 {
						return "", false
					}
					v, err := strconv.ParseUint(s[i+2:i+end], 16, 32)
					if err != nil || v > utf8.MaxRune {
						return "", false
					}
					b.WriteRune(rune(v))
					i += end
					continue
				}
			}
			if i+1+n > len(s) {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				return "", false
			}
			b.WriteRune(rune(v))
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// JSONStrings returns the strings of a JSON document (values, not keys;
// not JSON-LD's "@context") that look like URLs, objects' members in the
// order of their keys; nothing when it is not JSON.
func JSONStrings(text string) []string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil
	}
	var out []string
	stack := []any{v}
	for len(stack) > 0 && len(out) < maxGuesses {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := v.(type) {
		case string:
			if LooksLikeURL(v) {
				out = append(out, v)
			}
		case []any:
			for i := len(v) - 1; i >= 0; i-- {
				stack = append(stack, v[i])
			}
		case map[string]any:
			// Object members in a stable order: by key.
			keys := make([]string, 0, len(v))
			for k := range v {
				if k != "@context" { // JSON-LD's vocabulary, not a link
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for i := len(keys) - 1; i >= 0; i-- {
				stack = append(stack, v[keys[i]])
			}
		}
	}
	return out
}

// documentExtensions end a relative reference that is a URL, not a word.
var documentExtensions = []string{
	".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl",
	".json", ".xml", ".rss", ".atom", ".txt", ".csv", ".pdf",
	".js", ".mjs", ".css", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".avif", ".ico",
	".mp4", ".webm", ".mp3", ".ogg", ".woff", ".woff2", ".ttf", ".wasm",
}

// LooksLikeURL reports whether a string from a script is probably a URL:
// http(s)://host…, //host.tld…, /path (not "/" alone nor a comment or
// regular expression), ./ or ../, or a relative path with a "/" or a
// known extension (.html, .php, .json, .png, …); never one with white
// space, quotes, angle brackets, braces or a template placeholder.
func LooksLikeURL(s string) bool {
	if len(s) < 2 || len(s) > 2048 || strings.ContainsAny(s, " \t\r\n\"'<>{}|\\^`") {
		return false
	}
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		host := s[strings.Index(s, "//")+2:]
		return host != "" && host[0] != '/'
	case strings.HasPrefix(s, "//"):
		host, _, _ := strings.Cut(s[2:], "/")
		return strings.Contains(host, ".") && isAlnum(host[0])
	case s[0] == '/':
		return s[1] != '*' && s[1] != '/' && (isAlnum(s[1]) || strings.ContainsRune("_-.~%?", rune(s[1])))
	case strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../"):
		return true
	}
	if strings.Contains(lower, ":") || !isAlnum(s[0]) {
		return false
	}
	path, _, _ := strings.Cut(lower, "?")
	for _, ext := range documentExtensions {
		if strings.HasSuffix(path, ext) && len(path) > len(ext) {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
