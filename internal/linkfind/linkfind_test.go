package linkfind

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
)

func TestSrcset(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a.png", []string{"a.png"}},
		{"a.png 1x, b.png 2x", []string{"a.png", "b.png"}},
		{"  a.png   480w,\n b.png 800w ,c.png", []string{"a.png", "b.png", "c.png"}},
		{"a,b.png 1x, c.png 2x", []string{"a,b.png", "c.png"}},
		{"a.png,b.png", []string{"a.png,b.png"}}, // one URL, as the standard reads it
		{"a.png, ,, b.png", []string{"a.png", "b.png"}},
		{"a.png (max-width: 1px, x) 1x, b.png", []string{"a.png", "b.png"}},
		{"data:image/png;base64,AAAA 1x, c.png 2x", []string{"data:image/png;base64,AAAA", "c.png"}},
		{"", nil},
		{" , ", nil},
	} {
		if got := Srcset(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Srcset(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRefresh(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"5; url=/next", "/next", true},
		{"0;URL='/q?a=1'", "/q?a=1", true},
		{`0; url="/d" junk`, "/d", true},
		{"3, /comma", "/comma", true},
		{"1.5 ; Url = /spaced ", "/spaced", true},
		{"0; /plain", "/plain", true},
		{"5", "", false},
		{"5;", "", false},
		{"url=/x", "", false},
		{"", "", false},
		{"5 x", "", false},
	} {
		got, ok := Refresh(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Refresh(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestLinkHeader(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []HeaderLink
	}{
		{`</page/2>; rel="next"`, []HeaderLink{{"/page/2", "next"}}},
		{`<https://a.test/s.css>; rel=preload; as=style, </p1>; rel="prev start"`, []HeaderLink{{"https://a.test/s.css", "preload"}, {"/p1", "prev start"}}},
		{`</a,b>; title="x, y"; rel=NEXT, </c>`, []HeaderLink{{"/a,b", "next"}, {"/c", ""}}},
		{`</q>; title="a\"b"; rel=next`, []HeaderLink{{"/q", "next"}}},
		{`garbage, </ok>;rel=canonical`, []HeaderLink{{"/ok", "canonical"}}},
		{`</unterminated`, nil},
		{``, nil},
	} {
		if got := LinkHeader(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("LinkHeader(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCSS(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []CSSRef
	}{
		{`body{background:url(a.png)}`, []CSSRef{{"a.png", false}}},
		{`@import "i.css"; @import url('j.css') screen; p{x:url( "k.png" )}`, []CSSRef{{"i.css", true}, {"j.css", true}, {"k.png", false}}},
		{`/* url(no.png) */ a{content:"url(no2.png)"}`, nil},
		{`a{b:URL(\61 .png)}`, []CSSRef{{"a.png", false}}},
		{`a{b:url("sp ace.png")}`, []CSSRef{{"sp ace.png", false}}},
		{`a{b:image-set("x1.png" 1x, url(x2.png) 2x)}`, []CSSRef{{"x1.png", false}, {"x2.png", false}}},
		{`@font-face{src:url(f.woff2) format("woff2")}`, []CSSRef{{"f.woff2", false}}},
		{`a{b:"not.png"}`, nil},
		{`@IMPORT 'up.css';`, []CSSRef{{"up.css", true}}},
		{`a{b:url()}`, nil},
	} {
		if got := CSS(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CSS(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestJSStrings(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`location.href = "/next.html"; fetch('/api/items?page=2')`, []string{"/next.html", "/api/items?page=2"}},
		{`var a = "https://cdn.test/x.js", b = "hello world", c = "text/html"`, []string{"https://cdn.test/x.js"}},
		{"var t = `/tpl/page.html`, u = `/x/${id}`", []string{"/tpl/page.html"}},
		{`var re = /"\/not"/g; var s = "/yes"`, []string{"/yes"}},
		{`x = a / 2 / "/div"`, []string{"/div"}},
		{`s = "\/esc\u002fa.html"`, []string{"/esc/a.html"}},
		{`// "/commented"` + "\n" + `/* '/c2' */ "//cdn.test/y.png"`, []string{"//cdn.test/y.png"}},
		{`"images/p.png" + "data.json" + "a/b"`, []string{"images/p.png", "data.json"}},
		{`"unterminated`, nil},
	} {
		if got := JSStrings(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("JSStrings(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLooksLikeURL(t *testing.T) {
	yes := []string{"/a", "/a/b?c=1", "https://x.test", "http://x.test/p", "//cdn.test/x", "./a", "../b", "p.html", "img/a.png", "api/v1.json?x=1"}
	no := []string{"/", "//", "/*", "a", "hello world", "text/html", "application/json", "2020/01/02", "http://", "mailto:a@b", "{x}", "/a b", "https:///x", "#top", "a:b.html"}
	for _, s := range yes {
		if !LooksLikeURL(s) {
			t.Errorf("LooksLikeURL(%q) = false", s)
		}
	}
	for _, s := range no {
		if LooksLikeURL(s) {
			t.Errorf("LooksLikeURL(%q) = true", s)
		}
	}
}

func TestJSONStrings(t *testing.T) {
	got := JSONStrings(`{"b": ["/x.html", 1, {"u": "https://a.test/"}], "a": "not a url", "c": "/y", "@context": "https://schema.org"}`)
	want := []string{"/x.html", "https://a.test/", "/y"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSONStrings = %q, want %q", got, want)
	}
	if got := JSONStrings(`{bad`); got != nil {
		t.Errorf("not JSON: %q", got)
	}
}

// TestFormMatchesScrapy: the URLs and bodies Scrapy 2.8's
// FormRequest.from_response(response, formnumber=i) gives for these forms.
func TestFormMatchesScrapy(t *testing.T) {
	page, _ := url.Parse("https://a.test/dir/page.html?x=1")
	for _, c := range []struct {
		name, form string
		post       bool
		ref, body  string
		method     string
		ok         bool
	}{
		{"get with values", `<form action="/search?old=1"><input name="q" value="shoes"><input type="hidden" name="lang" value="en">` +
			`<input type="submit" name="go" value="Go"><input type="submit" name="other" value="x"></form>`, false,
			"https://a.test/search?q=shoes&lang=en&go=Go", "", "", true},
		{"no action: the page URL", `<form><input name="a" value="1 2"></form>`, false, "https://a.test/dir/page.html?a=1+2", "", "", true},
		{"checkboxes, radios, select, textarea", `<form action="f"><input type="checkbox" name="c1" checked><input type="checkbox" name="c2" value="v">` +
			`<input type="radio" name="r" value="a"><input type="radio" name="r" value="b" checked>` +
			`<select name="s"><option disabled>d</option><option value="1">one</option><option selected>two</option><option selected value="3">three</option></select>` +
			`<select name="m" multiple><option selected value="x">x</option><option>y</option><option selected>z</option></select>` +
			`<select name="e"><option disabled>d</option><option> first </option></select>` +
			`<textarea name="t">hi &amp; bye</textarea><input type="reset" name="no"><input name="" value="anon"><input type="text" name="empty">` +
			`<button name="b" value="bv">B</button></form>`, false,
			"https://a.test/dir/f?c1=on&r=b&s=3&m=x&m=z&e=first&t=hi+%26+bye&empty=&b=bv", "", "", true},
		{"post skipped unless asked", `<form method="post" action="/login"><input name="u" value="me"></form>`, false, "", "", "", false},
		{"post when asked", `<form method="POST" action="/login#f"><input name="u" value="me"></form>`, true, "https://a.test/login", "u=me", "POST", true},
		{"dialog", `<form method="dialog"><input name="u"></form>`, true, "", "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, _ := htmlparse.Parse(c.form)
			var links []Link
			HTML(root, Options{Kinds: Forms, PostForms: c.post, URL: page, Base: page}, func(l Link) { links = append(links, l) })
			if !c.ok {
				if len(links) != 0 {
					t.Fatalf("got %+v, want none", links)
				}
				return
			}
			if len(links) != 1 {
				t.Fatalf("got %d links: %+v", len(links), links)
			}
			l := links[0]
			if l.Ref != c.ref || l.Body != c.body || l.Method != c.method || l.Source != "form@action" || l.Kind != Forms {
				t.Errorf("got %q %q body %q (%s), want %q %q body %q", l.Method, l.Ref, l.Body, l.Source, c.method, c.ref, c.body)
			}
		})
	}
}

// TestFormAction: a submit button with formaction submits its form there,
// with formmethod or the form's method, its own name and value in the
// data: one more forms link, whose source is the button's; a button of
// type button or reset, or without formaction, adds none.
func TestFormAction(t *testing.T) {
	page, _ := url.Parse("https://a.test/dir/page.html")
	form := `<form method="post" action="/save"><input name="v" value="1">` +
		`<button name="b" value="go" formaction="/find#x" formmethod="GET">go</button>` +
		`<input type="submit" name="s" value="save" formaction="next">` +
		`<input type="image" name="i" formaction="/img" formmethod="get">` +
		`<button type="button" formaction="/no">no</button><button type="reset" formaction="/no">no</button>` +
		`<button formaction="/dialog" formmethod="dialog">no</button><button name="plain">plain</button></form>`
	for _, c := range []struct {
		post bool
		want []string
	}{
		{false, []string{"button@formaction GET https://a.test/find?v=1&b=go", "input@formaction GET https://a.test/img?v=1&i="}},
		{true, []string{"form@action POST https://a.test/save v=1&b=go", "button@formaction GET https://a.test/find?v=1&b=go",
			"input@formaction POST https://a.test/dir/next v=1&s=save", "input@formaction GET https://a.test/img?v=1&i="}},
	} {
		root, _ := htmlparse.Parse(form)
		var got []string
		HTML(root, Options{Kinds: Forms, PostForms: c.post, URL: page, Base: page}, func(l Link) {
			m := l.Method
			if m == "" {
				m = "GET"
			}
			s := l.Source + " " + m + " " + l.Ref
			if l.Body != "" {
				s += " " + l.Body
			}
			if l.Kind != Forms {
				t.Errorf("%s: kind %v", s, l.Kind)
			}
			got = append(got, s)
		})
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("post %v:\n got %q\nwant %q", c.post, got, c.want)
		}
	}
}

func TestHeaders(t *testing.T) {
	u, _ := url.Parse("https://a.test/p")
	h := map[string]string{"LINK": `</n>; rel=next, </s.css>; rel=stylesheet, <//o.test/>; rel=preconnect`, "refresh": "0; url=/r", "Content-Location": "/cl"}
	var got []string
	Headers(h, u, All, func(l Link) { got = append(got, l.Kind.String()+" "+l.Source+" "+l.Ref) })
	want := []string{"navigation header:Link /n", "resources header:Link /s.css", "navigation header:Refresh /r", "navigation header:Content-Location /cl"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = nil
	Headers(h, u, Resources, func(l Link) { got = append(got, l.Source+" "+l.Ref) })
	if !reflect.DeepEqual(got, []string{"header:Link /s.css"}) {
		t.Errorf("resources only: %q", got)
	}
}

func TestHTMLNestedBases(t *testing.T) {
	page, _ := url.Parse("https://a.test/dir/p.html")
	base, _ := url.Parse("https://b.test/base/")
	doc := `<iframe srcdoc="&lt;a href=in.html&gt;x&lt;/a&gt;&lt;base href=/own/&gt;"></iframe>` +
		`<iframe srcdoc="&lt;img src=pic.png&gt;"></iframe><!--[if lt IE 9]><script src="ie.js"></script><![endif]-->` +
		`<!-- plain comment <a href="no.html"> -->`
	root, _ := htmlparse.Parse(doc)
	var got []string
	HTML(root, Options{Kinds: All, URL: page, Base: base}, func(l Link) {
		u, _ := l.Base.Parse(l.Ref)
		got = append(got, l.Source+" "+u.String())
	})
	want := []string{"iframe@srcdoc a@href https://b.test/own/in.html", "iframe@srcdoc img@src https://b.test/base/pic.png", "comment script@src https://b.test/base/ie.js"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestParseKind(t *testing.T) {
	for _, s := range KindNames {
		k, err := ParseKind(strings.ToUpper(s))
		if err != nil || k.String() != s {
			t.Errorf("ParseKind(%q) = %v, %v", s, k, err)
		}
	}
	if _, err := ParseKind("images"); err == nil || !strings.Contains(err.Error(), "navigation, resources, forms, scripts, all") {
		t.Errorf("ParseKind(images): %v", err)
	}
}

// TestJavascriptHrefs: a javascript: href is a scripts link (its code
// read); without Scripts it is skipped, or given as written as a
// navigation link with JavascriptHrefs (for a caller's process_value).
func TestJavascriptHrefs(t *testing.T) {
	doc, _ := htmlparse.Parse(`<a href="javascript:go('/d')">d</a><a href="/e" style="background:url(/f)">e</a>`)
	for _, c := range []struct {
		o    Options
		want []string
	}{
		{Options{Kinds: Navigation}, []string{"navigation a@href /e"}},
		{Options{Kinds: Navigation, JavascriptHrefs: true}, []string{"navigation a@href javascript:go('/d')", "navigation a@href /e"}},
		{Options{Kinds: Navigation | Scripts, JavascriptHrefs: true}, []string{"scripts a@href js:string /d", "navigation a@href /e"}},
		{Options{Kinds: Navigation | Resources}, []string{"navigation a@href /e", "resources a@style css:url /f"}},
	} {
		var got []string
		HTML(doc, c.o, func(l Link) { got = append(got, l.Kind.String()+" "+l.Source+" "+l.Ref) })
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: got %q, want %q", c.o, got, c.want)
		}
	}
}

// TestSVG: inline SVG's links: href, or xlink:href where there is no
// href, and its style sheets, as HTML's.
func TestSVG(t *testing.T) {
	doc, _ := htmlparse.Parse(`<svg><a xlink:href="/a">a</a><image xlink:href="/x.png" href="/i.png"/><use xlink:href="/u.svg#i"/>` +
		`<style>@import url(/s.css); g { fill: url(/f.svg#p) }</style><rect style="fill:url(/r.svg#g)"/></svg>`)
	var got []string
	HTML(doc, Options{Kinds: All}, func(l Link) { got = append(got, l.Kind.String()+" "+l.Source+" "+l.Ref) })
	want := []string{"navigation a@xlink:href /a", "resources image@href /i.png", "resources use@xlink:href /u.svg#i",
		"resources style css:@import /s.css", "resources style css:url /f.svg#p", "resources rect@style css:url /r.svg#g"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
