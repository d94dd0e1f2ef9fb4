// Package htmlparse builds the tree of an HTML page: the tree CSS and XPath
// selectors run on, the same one golang.org/x/net/html builds, whatever the
// page.
//
// Parse is what a caller wants: Fast for the well-formed pages most sites
// serve (several times faster than x/net/html, with far fewer
// allocations), x/net/html for the rest, and for pages nested deeper than
// x/net/html accepts (512 open elements) the same page with its deepest
// elements made siblings, so its text, elements and links survive. Every
// function is safe for concurrent use; a tree is the caller's.
package htmlparse

import (
	"strings"

	"golang.org/x/net/html"
)

// Parse returns the document node of body (UTF-8). It never fails.
// Scripting is off, so the content of <noscript> is parsed as markup, as a
// client that runs no scripts sees it. degraded says the page was nested
// too deeply for x/net/html and was parsed again with its elements past a
// depth of 256 (or less, down to 16, until it parses) made siblings of the
// innermost open one: all text, elements and links kept, the nesting
// flatter.
func Parse(body string) (root *html.Node, degraded bool) {
	if root := Fast(body); root != nil {
		return root, false
	}
	root, err := Standard(body)
	for limit := 256; err != nil && limit >= 16; limit /= 2 {
		degraded = true
		root, err = Standard(limitNesting(body, limit))
	}
	if err != nil {
		// Not reached in practice: keep the text, lose the markup.
		root, _ = Standard(textOnly(body))
	}
	return root, degraded
}

// Standard parses body with x/net/html, scripting off. It fails only on a
// page nested deeper than 512 open elements.
func Standard(body string) (*html.Node, error) {
	return html.ParseWithOptions(strings.NewReader(body), html.ParseOptionEnableScripting(false))
}
