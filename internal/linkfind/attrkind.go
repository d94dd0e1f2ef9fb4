package linkfind

import (
	"strings"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// AttrKind is the kind HTML gives a link in attribute attr (lower case) of
// element n, for a caller that reads the attributes it is told (a link
// rule's tags and attrs) and names what it found as HTML would: img@src is
// Resources, a@href Navigation, form@action Forms, div@data-url Scripts.
// It is 0 where HTML reads no link (span@title, link@href with rel
// preconnect); a javascript: href is still Navigation, as the attribute
// is. It allocates nothing.
func AttrKind(n *html.Node, attr string) Kind {
	if n.Type != html.ElementNode {
		return 0
	}
	switch n.Namespace {
	case "svg":
		if attr != "href" && attr != "xlink:href" {
			return 0
		}
		switch n.Data {
		case "a":
			return Navigation
		case "image", "use", "feImage", "script":
			return Resources
		}
		return 0
	case "":
	default:
		return 0
	}
	if k := elementAttrKind(n, attr); k != 0 {
		return k
	}
	switch {
	case attr == "background", attr == "style":
		return Resources
	case strings.HasPrefix(attr, "on") && len(attr) > 2, strings.HasPrefix(attr, "data-"):
		return Scripts
	}
	return 0
}

// elementAttrKind is AttrKind for the attributes of particular elements
// (HTML's element; anyElement is the rest).
func elementAttrKind(n *html.Node, attr string) Kind {
	switch n.DataAtom {
	case atom.A, atom.Area:
		switch attr {
		case "href":
			return Navigation
		case "ping":
			return Resources
		}
	case atom.Link:
		switch attr {
		case "href":
			rel, _ := htmlparse.Attr(n, "rel")
			return relKind(rel)
		case "imagesrcset":
			return Resources
		}
	case atom.Frame, atom.Iframe:
		if attr == "src" || attr == "longdesc" {
			return Navigation
		}
	case atom.Img:
		switch attr {
		case "src", "srcset", "lowsrc", "dynsrc":
			return Resources
		case "longdesc":
			return Navigation
		}
	case atom.Input:
		if attr == "formaction" {
			return Forms
		}
		if typ, _ := htmlparse.Attr(n, "type"); attr == "src" && strings.EqualFold(typ, "image") {
			return Resources
		}
	case atom.Button:
		if attr == "formaction" {
			return Forms
		}
	case atom.Form:
		if attr == "action" {
			return Forms
		}
	case atom.Script:
		if attr == "src" {
			return Resources
		}
	case atom.Video:
		if attr == "src" || attr == "poster" {
			return Resources
		}
	case atom.Audio, atom.Track, atom.Embed:
		if attr == "src" {
			return Resources
		}
	case atom.Source:
		if attr == "src" || attr == "srcset" {
			return Resources
		}
	case atom.Object:
		if attr == "data" {
			return Resources
		}
	case atom.Param:
		if name, _ := htmlparse.Attr(n, "name"); attr == "value" && paramNames[strings.ToLower(name)] {
			return Resources
		}
	case atom.Blockquote, atom.Q, atom.Del, atom.Ins:
		if attr == "cite" {
			return Navigation
		}
	case atom.Html:
		if attr == "manifest" {
			return Resources
		}
	case atom.Meta:
		if attr != "content" {
			return 0
		}
		if eq, _ := htmlparse.Attr(n, "http-equiv"); strings.EqualFold(strings.TrimSpace(eq), "refresh") {
			return Navigation
		}
		name, ok := htmlparse.Attr(n, "property")
		if !ok {
			name, _ = htmlparse.Attr(n, "name")
		}
		return metaContent[strings.ToLower(strings.TrimSpace(name))]
	}
	return 0
}
