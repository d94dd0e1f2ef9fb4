package linkfind

import (
	"net/url"
	"strings"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// FormData returns the name-value pairs a form submits untouched, as
// Scrapy's FormRequest.from_response fills them (with lxml's form values):
// every named input but submit, image and reset buttons, checkboxes and
// radio buttons only when checked (value "on" without a value), textareas'
// text, selects' selected options (a single select without one: its first
// option that is not disabled), then the first submit button's name and
// value, as a click on it sends them. Elements without a name are skipped.
func FormData(form *html.Node) [][2]string { return formData(form, nil) }

// formData is FormData as a click on the submit button clicked sends it
// (nil: the first one).
func formData(form, clicked *html.Node) [][2]string {
	var out [][2]string
	clickable := clicked
	for n := form.FirstChild; n != nil; n = htmlparse.NextNode(n, form) {
		if n.Type != html.ElementNode {
			continue
		}
		name, _ := htmlparse.Attr(n, "name")
		switch n.DataAtom {
		case atom.Input:
			typ, _ := htmlparse.Attr(n, "type")
			typ = strings.ToLower(typ)
			switch typ {
			case "submit", "image":
				if clickable == nil {
					clickable = n
				}
				continue
			case "reset":
				continue
			case "checkbox", "radio":
				if _, checked := htmlparse.Attr(n, "checked"); !checked {
					continue
				}
				v, _ := htmlparse.Attr(n, "value")
				if v == "" {
					v = "on"
				}
				if name != "" {
					out = append(out, [2]string{name, v})
				}
				continue
			}
			if name != "" {
				v, _ := htmlparse.Attr(n, "value")
				out = append(out, [2]string{name, v})
			}
		case atom.Button:
			typ, ok := htmlparse.Attr(n, "type")
			if clickable == nil && (!ok || strings.EqualFold(typ, "submit")) {
				clickable = n
			}
		case atom.Textarea:
			if name != "" {
				out = append(out, [2]string{name, htmlparse.TextContent(n)})
			}
		case atom.Select:
			if name != "" {
				out = append(out, selectValues(n, name)...)
			}
		}
	}
	if clickable != nil {
		if name, _ := htmlparse.Attr(clickable, "name"); name != "" {
			v, _ := htmlparse.Attr(clickable, "value")
			out = append(out, [2]string{name, v})
		}
	}
	return out
}

// selectValues are what a select submits, as lxml's SelectElement.value
// gives them.
func selectValues(sel *html.Node, name string) [][2]string {
	_, multiple := htmlparse.Attr(sel, "multiple")
	var options []*html.Node
	for n := sel.FirstChild; n != nil; n = htmlparse.NextNode(n, sel) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Option {
			options = append(options, n)
		}
	}
	value := func(o *html.Node) string {
		if v, ok := htmlparse.Attr(o, "value"); ok {
			return v
		}
		return strings.TrimSpace(htmlparse.TextContent(o))
	}
	var out [][2]string
	if multiple {
		for _, o := range options {
			if _, ok := htmlparse.Attr(o, "selected"); ok {
				out = append(out, [2]string{name, value(o)})
			}
		}
		return out
	}
	for i := len(options) - 1; i >= 0; i-- {
		if _, ok := htmlparse.Attr(options[i], "selected"); ok {
			return [][2]string{{name, value(options[i])}}
		}
	}
	for _, o := range options {
		if _, disabled := htmlparse.Attr(o, "disabled"); !disabled {
			return [][2]string{{name, value(o)}}
		}
	}
	return [][2]string{{name, ""}}
}

// EncodeForm writes pairs as application/x-www-form-urlencoded, in order,
// as Python's urlencode does (spaces as "+").
func EncodeForm(pairs [][2]string) string {
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p[0]))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p[1]))
	}
	return b.String()
}

// submitButton reports whether n submits its form when clicked: an input
// of type submit or image, a button of type submit (the default).
func submitButton(n *html.Node) bool {
	typ, ok := htmlparse.Attr(n, "type")
	switch n.DataAtom {
	case atom.Input:
		return strings.EqualFold(typ, "submit") || strings.EqualFold(typ, "image")
	case atom.Button:
		return !ok || strings.EqualFold(strings.TrimSpace(typ), "submit")
	}
	return false
}

// form returns the link a form submits to with its default values: a GET
// form's action with its query replaced by the data (as Scrapy's
// from_response builds it), a POST form's action with the data as body
// (only when post is set). The action resolves against base; a form
// without one submits to the page URL. ok is false for a POST form when
// post is not set, a dialog form, or an action that does not parse.
func form(n *html.Node, page, base *url.URL, post bool) (Link, bool) {
	method, _ := htmlparse.Attr(n, "method")
	action, hasAction := htmlparse.Attr(n, "action")
	l, ok := submission(n, nil, method, action, hasAction, page, base, post)
	l.Source = "form@action"
	return l, ok
}

// formActions calls fn for each submit button of form n that submits it
// elsewhere than the form does: one with a formaction (and maybe a
// formmethod), as a click on it would, with its own name and value in the
// data. Its source is "button@formaction" or "input@formaction".
func formActions(n *html.Node, page, base *url.URL, post bool, fn func(Link)) {
	formMethod, _ := htmlparse.Attr(n, "method")
	for b := n.FirstChild; b != nil; b = htmlparse.NextNode(b, n) {
		if b.Type != html.ElementNode || b.Namespace != "" || !submitButton(b) {
			continue
		}
		action, ok := htmlparse.Attr(b, "formaction")
		if !ok {
			continue
		}
		method, ok := htmlparse.Attr(b, "formmethod")
		if !ok {
			method = formMethod
		}
		if l, ok := submission(n, b, method, action, true, page, base, post); ok {
			l.Source = b.Data + "@formaction"
			fn(l)
		}
	}
}

// submission is the link of form n submitted by a click on clicked (nil:
// its first submit button) with method to action.
func submission(n, clicked *html.Node, method, action string, hasAction bool, page, base *url.URL, post bool) (Link, bool) {
	method = strings.ToUpper(strings.TrimSpace(method))
	switch method {
	case "", "GET":
		method = ""
	case "POST":
		if !post {
			return Link{}, false
		}
	default:
		return Link{}, false
	}
	target := page
	if hasAction {
		ref, err := url.Parse(strings.TrimSpace(action))
		if err != nil {
			return Link{}, false
		}
		if base != nil {
			ref = base.ResolveReference(ref)
		}
		target = ref
	}
	if target == nil {
		return Link{}, false
	}
	data := EncodeForm(formData(n, clicked))
	u := *target
	u.Fragment, u.RawFragment = "", ""
	l := Link{Kind: Forms, Base: base, Node: n}
	if method == "" {
		u.RawQuery, u.ForceQuery = data, false
	} else {
		l.Method, l.Body = "POST", data
	}
	l.Ref = u.String()
	return l, true
}
