// Package linkfind finds every URL an HTML page, its response headers or a
// stylesheet points at: what a browser would request, not only <a href>.
// Each link says its Kind (navigation, resources, forms, scripts) and its
// Source ("img@srcset", "header:Link", "style css:url"), so a caller can
// keep the kinds it wants and tell where each came from.
//
// The functions are pure: they read a parsed page (golang.org/x/net/html),
// header values or CSS text, and resolve nothing but form actions. A Link
// carries the reference as written and the base it resolves against (the
// page's <base href>, the response URL for headers, the stylesheet's URL);
// turning it into a URL to crawl is the caller's (cextract.ResolveLink).
// Everything here is hostile input: each parser is bounded by its input,
// never recurses on it without a limit, and has a fuzz target.
package linkfind

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// Kind is a kind of link, a bit set of them in Kinds.
type Kind uint8

// The kinds of links.
const (
	// Navigation leads to documents: a and area href, frame and iframe
	// src, <link rel=next|prev|alternate|canonical…>, cite, longdesc,
	// meta refresh, and the Link, Refresh and Content-Location headers.
	Navigation Kind = 1 << iota
	// Resources are what a page needs to show: img, script, media,
	// object, embed src, srcset candidates, stylesheets, CSS url() and
	// @import, icons, the manifest, poster, background, ping.
	Resources
	// Forms are forms' submissions with their default values, as
	// Scrapy's FormRequest.from_response fills them: GET forms; POST
	// forms only when asked (see Options.PostForms).
	Forms
	// Scripts are URL-looking strings in inline scripts, event handlers,
	// javascript: links, JSON script blocks and data-* attributes:
	// guesses.
	Scripts
	// All is every kind.
	All = Navigation | Resources | Forms | Scripts
)

var kindNames = [...]struct {
	k    Kind
	name string
}{{Navigation, "navigation"}, {Resources, "resources"}, {Forms, "forms"}, {Scripts, "scripts"}}

// KindNames are the names ParseKind takes, "all" last.
var KindNames = []string{"navigation", "resources", "forms", "scripts", "all"}

// String is the kind's name ("navigation"), or the names of a set joined
// by ",".
func (k Kind) String() string {
	if k == All {
		return "all"
	}
	var names []string
	for _, kn := range kindNames {
		if k&kn.k != 0 {
			names = append(names, kn.name)
		}
	}
	return strings.Join(names, ",")
}

// ParseKind reads one kind name (case-insensitive), or "all".
func ParseKind(s string) (Kind, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "all" {
		return All, nil
	}
	for _, kn := range kindNames {
		if s == kn.name {
			return kn.k, nil
		}
	}
	return 0, fmt.Errorf("unknown link kind %q (want %s)", s, strings.Join(KindNames, ", "))
}

// Link is one URL a page points at.
type Link struct {
	Kind   Kind
	Source string   // where it was found: "a@href", "header:Link", "style css:url", "script js:string"
	Ref    string   // the reference as written (for a form: the URL with its query built)
	Base   *url.URL // what Ref resolves against; nil when nothing does
	Method string   // "POST" for a POST form; "" is GET
	Body   string   // a POST form's data, application/x-www-form-urlencoded
	// Node is the element the link is on, nil for headers and CSS
	// responses (for rel="nofollow").
	Node *html.Node
}
