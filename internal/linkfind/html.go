package linkfind

import (
	"net/url"
	"strings"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Options say which links HTML finds and what they resolve against.
type Options struct {
	Kinds     Kind
	PostForms bool     // POST forms too (their data as the body)
	URL       *url.URL // the page's URL: where a form without action submits
	Base      *url.URL // the page's <base href> resolved, else URL
	// JavascriptHrefs gives the javascript: hrefs of a and area, as
	// written, as navigation links when Scripts is not wanted: for a
	// caller that rewrites them (Scrapy's process_value).
	JavascriptHrefs bool
}

// maxNesting bounds how deep documents inside attributes and comments
// (iframe srcdoc, conditional comments) are read.
const maxNesting = 3

// HTML calls fn for each link of the kinds wanted in the subtree of root,
// in document order; see the package documentation and docs/rules.md for
// the table of elements and attributes. An iframe's srcdoc is read as a
// document whose base is the page's (or its own <base href>), and the
// content of conditional comments (<!--[if IE]>…<![endif]-->) as markup;
// the Source of their links starts "iframe@srcdoc " or "comment ".
func HTML(root *html.Node, o Options, fn func(Link)) {
	w := walker{o: o, fn: fn}
	w.walk(root, o.Base)
}

type walker struct {
	o      Options
	fn     func(Link)
	prefix string
	depth  int
}

func (w *walker) walk(root *html.Node, base *url.URL) {
	for n := root; n != nil; n = htmlparse.NextNode(n, root) {
		switch n.Type {
		case html.ElementNode:
			w.element(n, base)
		case html.CommentNode:
			if inner, ok := conditionalComment(n.Data); ok && w.depth < maxNesting {
				doc, _ := htmlparse.Parse(inner)
				w.nested(doc, base, "comment ")
			}
		}
	}
}

// nested walks a document found inside the page.
func (w *walker) nested(doc *html.Node, base *url.URL, prefix string) {
	saved := w.prefix
	w.prefix += prefix
	w.depth++
	w.walk(doc, base)
	w.depth--
	w.prefix = saved
}

// conditionalComment returns the markup inside an Internet Explorer
// conditional comment ("[if IE]><link …><![endif]").
func conditionalComment(c string) (string, bool) {
	s := strings.TrimSpace(c)
	if !strings.HasPrefix(strings.ToLower(s), "[if") {
		return "", false
	}
	i := strings.Index(s, "]>")
	if i < 0 {
		return "", false
	}
	s = s[i+2:]
	if j := strings.LastIndex(strings.ToLower(s), "<![endif]"); j >= 0 {
		s = s[:j]
	}
	return s, true
}

func (w *walker) emit(k Kind, source, ref string, base *url.URL, n *html.Node) {
	if w.o.Kinds&k == 0 || strings.TrimSpace(ref) == "" {
		return
	}
	w.fn(Link{Kind: k, Source: w.prefix + source, Ref: ref, Base: base, Node: n})
}

// attr emits the value of attribute name of n, when it has one.
func (w *walker) attr(k Kind, n *html.Node, name string, base *url.URL) {
	if w.o.Kinds&k == 0 {
		return
	}
	if v, ok := htmlparse.Attr(n, name); ok {
		w.emit(k, n.Data+"@"+name, v, base, n)
	}
}

func (w *walker) srcset(n *html.Node, name string, base *url.URL) {
	if w.o.Kinds&Resources == 0 {
		return
	}
	if v, ok := htmlparse.Attr(n, name); ok {
		for _, ref := range Srcset(v) {
			w.emit(Resources, n.Data+"@"+name, ref, base, n)
		}
	}
}

func (w *walker) css(where, text string, base *url.URL, n *html.Node) {
	for _, r := range CSS(text) {
		how := " css:url"
		if r.Import {
			how = " css:@import"
		}
		w.emit(Resources, where+how, r.Ref, base, n)
	}
}

func (w *walker) script(where, code string, base *url.URL, n *html.Node) {
	for _, s := range JSStrings(code) {
		w.emit(Scripts, where+" js:string", s, base, n)
	}
}

// metaContent are <meta property|name> whose content is a URL.
var metaContent = map[string]Kind{
	"og:url": Navigation, "og:image": Resources, "og:image:url": Resources, "og:image:secure_url": Resources,
	"og:video": Resources, "og:video:url": Resources, "og:audio": Resources, "twitter:image": Resources,
	"twitter:image:src": Resources, "msapplication-tileimage": Resources, "msapplication-config": Resources,
}

// paramNames are the <param> names whose value is what an object loads.
var paramNames = map[string]bool{"movie": true, "src": true, "url": true, "filename": true, "data": true}

func (w *walker) element(n *html.Node, base *url.URL) {
	k := w.o.Kinds
	svg := n.Namespace == "svg"
	switch {
	case svg && (n.Data == "a" || n.Data == "image" || n.Data == "use" || n.Data == "feImage" || n.Data == "script"):
		kind := Resources
		if n.Data == "a" {
			kind = Navigation
		}
		if _, ok := htmlparse.Attr(n, "href"); ok {
			w.attr(kind, n, "href", base)
		} else {
			w.attr(kind, n, "xlink:href", base)
		}
	case svg && n.Data == "style":
		// An SVG style sheet, as an HTML one (its text is parsed as
		// markup, so an entity in it is decoded).
		if k&Resources != 0 {
			w.css("style", htmlparse.TextContent(n), base, n)
		}
	case n.Namespace != "":
	default:
		switch n.DataAtom {
		case atom.A, atom.Area:
			if href, ok := htmlparse.Attr(n, "href"); ok {
				source := "a@href"
				if n.DataAtom == atom.Area {
					source = "area@href"
				}
				if code, ok := javascriptURL(href); ok {
					if k&Scripts != 0 {
						w.script(source, code, base, n)
					} else if w.o.JavascriptHrefs {
						w.emit(Navigation, source, href, base, n)
					}
				} else {
					w.emit(Navigation, source, href, base, n)
				}
			}
			if ping, ok := htmlparse.Attr(n, "ping"); ok && k&Resources != 0 {
				for _, ref := range strings.Fields(ping) {
					w.emit(Resources, n.Data+"@ping", ref, base, n)
				}
			}
		case atom.Link:
			rel, _ := htmlparse.Attr(n, "rel")
			if kind := relKind(rel); kind != 0 {
				w.attr(kind, n, "href", base)
			}
			w.srcset(n, "imagesrcset", base)
		case atom.Frame, atom.Iframe:
			w.attr(Navigation, n, "src", base)
			w.attr(Navigation, n, "longdesc", base)
			if doc, ok := htmlparse.Attr(n, "srcdoc"); ok && n.DataAtom == atom.Iframe && w.depth < maxNesting {
				root, _ := htmlparse.Parse(doc)
				w.nested(root, ownBase(root, base), "iframe@srcdoc ")
			}
		case atom.Img:
			w.attr(Resources, n, "src", base)
			w.srcset(n, "srcset", base)
			w.attr(Resources, n, "lowsrc", base)
			w.attr(Resources, n, "dynsrc", base)
			w.attr(Navigation, n, "longdesc", base)
		case atom.Input:
			if typ, _ := htmlparse.Attr(n, "type"); strings.EqualFold(typ, "image") {
				w.attr(Resources, n, "src", base)
			}
		case atom.Script:
			if _, ok := htmlparse.Attr(n, "src"); ok {
				w.attr(Resources, n, "src", base)
			} else if k&Scripts != 0 {
				w.inlineScript(n, base)
			}
		case atom.Style:
			if k&Resources != 0 {
				w.css("style", htmlparse.TextContent(n), base, n)
			}
		case atom.Video:
			w.attr(Resources, n, "src", base)
			w.attr(Resources, n, "poster", base)
		case atom.Audio, atom.Track, atom.Embed:
			w.attr(Resources, n, "src", base)
		case atom.Source:
			w.attr(Resources, n, "src", base)
			w.srcset(n, "srcset", base)
		case atom.Object:
			w.attr(Resources, n, "data", base)
		case atom.Param:
			if name, _ := htmlparse.Attr(n, "name"); paramNames[strings.ToLower(name)] {
				w.attr(Resources, n, "value", base)
			}
		case atom.Blockquote, atom.Q, atom.Del, atom.Ins:
			w.attr(Navigation, n, "cite", base)
		case atom.Html:
			w.attr(Resources, n, "manifest", base)
		case atom.Meta:
			w.meta(n, base)
		case atom.Form:
			if k&Forms != 0 {
				if l, ok := form(n, w.o.URL, base, w.o.PostForms); ok {
					l.Source = w.prefix + l.Source
					w.fn(l)
				}
				formActions(n, w.o.URL, base, w.o.PostForms, func(l Link) {
					l.Source = w.prefix + l.Source
					w.fn(l)
				})
			}
		}
	}
	w.anyElement(n, base)
}

// anyElement handles the attributes any element may have: background,
// style, event handlers, data-*.
func (w *walker) anyElement(n *html.Node, base *url.URL) {
	k := w.o.Kinds
	if k&(Resources|Scripts) == 0 {
		return // navigation alone, the default: none of these
	}
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		key := strings.ToLower(a.Key)
		switch {
		case key == "background" && n.Namespace == "":
			w.emit(Resources, n.Data+"@background", a.Val, base, n)
		case key == "style" && k&Resources != 0:
			w.css(n.Data+"@style", a.Val, base, n)
		case strings.HasPrefix(key, "on") && len(key) > 2 && k&Scripts != 0:
			w.script(n.Data+"@"+key, a.Val, base, n)
		case strings.HasPrefix(key, "data-") && k&Scripts != 0:
			v := strings.TrimSpace(a.Val)
			switch {
			case v == "":
			case v[0] == '{' || v[0] == '[':
				for _, s := range JSONStrings(v) {
					w.emit(Scripts, n.Data+"@"+key+" json:string", s, base, n)
				}
			case LooksLikeURL(v):
				w.emit(Scripts, n.Data+"@"+key, v, base, n)
			}
		}
	}
}

func (w *walker) meta(n *html.Node, base *url.URL) {
	content, ok := htmlparse.Attr(n, "content")
	if !ok {
		return
	}
	if eq, _ := htmlparse.Attr(n, "http-equiv"); strings.EqualFold(strings.TrimSpace(eq), "refresh") {
		if ref, ok := Refresh(content); ok {
			w.emit(Navigation, "meta@refresh", ref, base, n)
		}
		return
	}
	name, ok := htmlparse.Attr(n, "property")
	if !ok {
		name, _ = htmlparse.Attr(n, "name")
	}
	if kind, ok := metaContent[strings.ToLower(strings.TrimSpace(name))]; ok {
		w.emit(kind, "meta@content", content, base, n)
	}
}

// jsonScriptTypes are the script types whose content is JSON.
var jsonScriptTypes = map[string]bool{
	"application/json": true, "application/ld+json": true, "importmap": true, "speculationrules": true,
}

// inlineScript takes the URL-looking strings of a script element's code
// (or its JSON, for JSON types); other types (templates) are left.
func (w *walker) inlineScript(n *html.Node, base *url.URL) {
	typ, _ := htmlparse.Attr(n, "type")
	typ = strings.ToLower(strings.TrimSpace(typ))
	if i := strings.IndexByte(typ, ';'); i >= 0 {
		typ = strings.TrimSpace(typ[:i])
	}
	text := htmlparse.TextContent(n)
	switch {
	case jsonScriptTypes[typ]:
		for _, s := range JSONStrings(text) {
			w.emit(Scripts, "script json:string", s, base, n)
		}
	case typ == "" || typ == "module" || strings.Contains(typ, "javascript") || strings.Contains(typ, "ecmascript"):
		w.script("script", text, base, n)
	}
}

// javascriptURL returns the code of a javascript: URL, percent-decoded.
func javascriptURL(href string) (string, bool) {
	s := strings.TrimLeft(href, " \t\n\r\f")
	if len(s) < 11 || !strings.EqualFold(s[:11], "javascript:") {
		return "", false
	}
	code, err := url.PathUnescape(s[11:])
	if err != nil {
		code = s[11:]
	}
	return code, true
}

// ownBase is the base of a document found inside the page: its own first
// <base href>, resolved against the page's base, else the page's base.
func ownBase(root *html.Node, base *url.URL) *url.URL {
	for n := root; n != nil; n = htmlparse.NextNode(n, root) {
		if n.Type != html.ElementNode || n.DataAtom != atom.Base || n.Namespace != "" {
			continue
		}
		href, ok := htmlparse.Attr(n, "href")
		if !ok {
			continue
		}
		ref, err := url.Parse(strings.TrimSpace(href))
		if err != nil {
			return base
		}
		if base != nil {
			ref = base.ResolveReference(ref)
		}
		if ref.IsAbs() && ref.Host != "" {
			return ref
		}
		return base
	}
	return base
}
