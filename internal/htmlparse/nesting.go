package htmlparse

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// limitNesting rewrites an HTML page so that no element opens more than
// limit levels deep, by the simple count of start and end tags. An element
// that would open deeper is made a sibling of the innermost open one (which
// is closed first), as WebKit does past 512 levels; end tags that close
// nothing open are dropped. Everything else is kept byte for byte, so the
// page's text, elements and links survive, only flatter. It is the fallback
// for pages the HTML parser refuses (x/net/html stops at 512 open elements).
func limitNesting(body string, limit int) string {
	z := html.NewTokenizer(strings.NewReader(body))
	var out strings.Builder
	out.Grow(len(body))
	var open []string // names of the open elements by the naive count, innermost last
	foreign := 0      // how many of them are <svg> or <math>
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out.String()
		}
		// Copy: TagName lowercases the token's bytes in place.
		raw := string(z.Raw())
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			// <div/> opens a div in HTML; only in SVG and MathML does the
			// slash close the element.
			if voidElement(atom.Lookup(name)) || tt == html.SelfClosingTagToken && foreign > 0 {
				break
			}
			if len(open) >= limit {
				if top := open[len(open)-1]; top == "svg" || top == "math" {
					foreign--
				}
				out.WriteString("</" + open[len(open)-1] + ">")
				open = open[:len(open)-1]
			}
			if n := string(name); n == "svg" || n == "math" {
				foreign++
			}
			open = append(open, string(name))
		case html.EndTagToken:
			name, _ := z.TagName()
			i := len(open) - 1
			for i >= 0 && open[i] != string(name) {
				i--
			}
			if i < 0 {
				continue // closes nothing open: drop it
			}
			for _, n := range open[i:] {
				if n == "svg" || n == "math" {
					foreign--
				}
			}
			open = open[:i]
		}
		out.WriteString(raw)
	}
}

// voidElement reports whether a has no end tag (it never nests).
func voidElement(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr, atom.Keygen:
		return true
	}
	return false
}

// textOnly returns the text of an HTML page, escaped, without any markup.
func textOnly(body string) string {
	z := html.NewTokenizer(strings.NewReader(body))
	var out strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out.String()
		case html.TextToken:
			out.WriteString(html.EscapeString(string(z.Text())))
		}
	}
}
