package selector

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// Selector is a compiled CSS selector, XPath expression or record field
// (@url). Compile it once and run it on many pages. A Selector is not safe for concurrent use (the
// XPath engine keeps state in the compiled expression).
type Selector struct {
	src   string
	css   *cssSelector
	xpath *xpathSelector
	field *FieldSelector
}

// Compile compiles src. It is XPath when it starts with "/", "(", "./",
// "../" or an XPath function call such as "normalize-space(" or "count(",
// a field of the page's record when it starts with "@" ("@url", see
// FieldSelector), and CSS otherwise; the prefixes "css:" and "xpath:" force
// CSS or XPath. CSS accepts Scrapy's pseudo-elements ::text, ::attr(NAME)
// and our ::html (see cssSelector). The error says what is wrong and where.
func Compile(src string) (*Selector, error) {
	s := &Selector{src: src}
	var err error
	switch {
	case strings.HasPrefix(src, "css:"):
		s.css, err = compileCSS(src[len("css:"):])
	case strings.HasPrefix(src, "xpath:"):
		s.xpath, err = compileXPath(src[len("xpath:"):])
	case strings.HasPrefix(strings.TrimSpace(src), "@"):
		s.field, err = CompileField(src)
	case looksLikeXPath(src):
		s.xpath, err = compileXPath(src)
	default:
		s.css, err = compileCSS(src)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// String returns the selector as it was written.
func (s *Selector) String() string { return s.src }

// IsXPath reports whether s is an XPath expression.
func (s *Selector) IsXPath() bool { return s.xpath != nil }

// IsRecordField reports whether s reads the page's record (@url), not the page.
func (s *Selector) IsRecordField() bool { return s.field != nil }

// Select returns every value s yields on the page, in document order, blank
// ones included (Scrapy's .getall()).
func (s *Selector) Select(d *Doc) ([]Value, error) { return s.SelectFrom(d, d.Root) }

// SelectFrom is Select relative to ctx, a node of d: CSS matches the
// descendants of ctx, XPath runs with ctx as its context node (so "./p" is
// relative and "//p" still searches the whole page, as XPath says).
func (s *Selector) SelectFrom(d *Doc, ctx *html.Node) ([]Value, error) {
	var vals []Value
	err := s.Each(d, ctx, func(v Value) bool {
		vals = append(vals, v)
		return true
	})
	return vals, err
}

// First returns the first value of s relative to ctx that is not blank
// (Scrapy's .get(), skipping white-space-only text such as the indentation
// before an element); ok is false when there is none.
func (s *Selector) First(d *Doc, ctx *html.Node) (v Value, ok bool, err error) {
	err = s.Each(d, ctx, func(x Value) bool {
		if x.Blank() {
			return true
		}
		v, ok = x, true
		return false
	})
	return v, ok, err
}

// Elements returns the elements s matches relative to ctx, in document
// order. A CSS selector with a pseudo-element, or a record field, is an
// error; XPath results that are not elements (text, attributes, numbers)
// are left out.
func (s *Selector) Elements(d *Doc, ctx *html.Node) ([]*html.Node, error) {
	switch {
	case s.css != nil:
		return s.css.elements(d, ctx)
	case s.xpath != nil:
		return s.xpath.elements(d, ctx)
	}
	return nil, errors.New("a record field is not an element")
}

// SelectsElements reports whether s can select elements: false for CSS with
// a pseudo-element (::text, ::attr(), ::html), whose results are strings,
// and for record fields.
func (s *Selector) SelectsElements() bool {
	return s.xpath != nil || s.css != nil && s.css.selectsElements()
}

// Each calls fn with each value in document order until fn returns false,
// without building the list Select returns.
func (s *Selector) Each(d *Doc, ctx *html.Node, fn func(Value) bool) error {
	switch {
	case s.css != nil:
		s.css.each(d, ctx, fn)
	case s.field != nil:
		s.field.each(d, fn)
	default:
		return s.xpath.each(d, ctx, fn)
	}
	return nil
}

// xpathFunctions are the functions that may open an XPath expression: XPath
// 1.0's, antchfx/xpath's additions, and the node tests text(), node(), ….
var xpathFunctions = map[string]bool{
	"last": true, "position": true, "count": true, "id": true, "local-name": true,
	"namespace-uri": true, "name": true, "string": true, "concat": true, "starts-with": true,
	"contains": true, "substring-before": true, "substring-after": true, "substring": true,
	"string-length": true, "normalize-space": true, "translate": true, "boolean": true,
	"not": true, "true": true, "false": true, "lang": true, "number": true, "sum": true,
	"floor": true, "ceiling": true, "round": true,
	"ends-with": true, "lower-case": true, "upper-case": true, "matches": true,
	"replace": true, "reverse": true, "string-join": true,
	"text": true, "node": true, "comment": true, "processing-instruction": true,
}

// looksLikeXPath decides between XPath and CSS by how src begins.
func looksLikeXPath(src string) bool {
	s := strings.TrimLeft(src, " \t\r\n")
	if s == "" {
		return false
	}
	switch {
	case s[0] == '/' || s[0] == '(':
		return true
	case strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../"):
		return true
	}
	// name( where name is an XPath function.
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] == '-') {
		i++
	}
	if i == 0 || !xpathFunctions[s[:i]] {
		return false
	}
	rest := strings.TrimLeft(s[i:], " \t")
	return strings.HasPrefix(rest, "(")
}

// ErrEmpty is the error for an empty selector.
var ErrEmpty = errors.New("empty selector")

// SyntaxError is a selector that does not compile: "invalid LANG "SRC":
// why". Callers that compile selectors of other languages (jq, regular
// expressions) build theirs with NewSyntaxError.
type SyntaxError struct {
	lang, src string
	err       error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid %s %q: %v", e.lang, e.src, e.err)
}

func (e *SyntaxError) Unwrap() error { return e.err }

// NewSyntaxError returns the SyntaxError of src, a selector in lang
// ("XPath", "jq", …), that did not compile because of err.
func NewSyntaxError(lang, src string, err error) *SyntaxError {
	return &SyntaxError{lang, src, err}
}
