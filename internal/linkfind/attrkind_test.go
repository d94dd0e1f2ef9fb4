package linkfind

import (
	"net/url"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
	"golang.org/x/net/html"
)

// attrKindPage has a link of every element and attribute HTML reads.
const attrKindPage = `<html manifest="/m.appcache"><head>
<link rel="next" href="/n"><link rel="stylesheet" href="/s.css"><link rel="preload" imagesrcset="/p.png 1x">
<meta http-equiv="refresh" content="0; url=/r"><meta property="og:url" content="/og"><meta name="twitter:image" content="/tw.png">
<script src="/s.js"></script></head>
<body background="/bg.png"><a href="/a" ping="/ping">a</a><map><area href="/area"></map>
<frameset><frame src="/f" longdesc="/fl"></frameset><iframe src="/if" longdesc="/ifl"></iframe>
<img src="/i.png" srcset="/i2.png 2x" lowsrc="/lo.png" dynsrc="/dyn.avi" longdesc="/ld">
<input type="image" src="/in.png"><video src="/v.mp4" poster="/po.png"><track src="/t.vtt"></video>
<audio src="/au.mp3"></audio><embed src="/e.swf"><picture><source src="/so.webm" srcset="/so.png"></picture>
<object data="/o.swf"><param name="movie" value="/pm.swf"></object>
<blockquote cite="/bq"></blockquote><q cite="/q"></q><del cite="/del"></del><ins cite="/ins"></ins>
<form action="/form"><input name="x" value="1"><button formaction="/btn">b</button><input type="submit" formaction="/inp"></form>
<div style="background:url(/st.png)" data-url="/data" onclick="go('/click')"></div><td background="/td.png"></td>
<svg><a href="/svga">s</a><image href="/svgi.png"></image><use xlink:href="/u.svg#x"></use></svg>
</body></html>`

// TestAttrKindAgreesWithHTML: each link HTML finds in an attribute of its
// element has the kind AttrKind gives that attribute.
func TestAttrKindAgreesWithHTML(t *testing.T) {
	root, _ := htmlparse.Parse(attrKindPage)
	page, _ := url.Parse("https://a.test/")
	n := 0
	HTML(root, Options{Kinds: All, PostForms: true, URL: page, Base: page}, func(l Link) {
		tag, attr, ok := strings.Cut(l.Source, "@")
		attr, _, _ = strings.Cut(attr, " ") // "div@style css:url"
		if !ok || l.Node == nil || l.Node.Data != tag || !hasAttr(l.Node, attr) {
			return // meta@refresh, a form without action, a script's text
		}
		n++
		if got := AttrKind(l.Node, attr); got != l.Kind {
			t.Errorf("AttrKind(%s, %s) = %v, HTML found %s as %v", tag, attr, got, l.Ref, l.Kind)
		}
	})
	if n < 35 {
		t.Errorf("checked %d links, want the page's 35 or more", n)
	}
}

func hasAttr(n *html.Node, name string) bool {
	_, ok := htmlparse.Attr(n, name)
	return ok
}

// TestAttrKindElsewhere: attributes HTML reads no link from have no kind;
// a meta refresh's content is navigation.
func TestAttrKindElsewhere(t *testing.T) {
	root, _ := htmlparse.Parse(`<meta http-equiv=Refresh content="0;url=/r"><span title="/t"></span><link rel=preconnect href="//cdn.test"><input src="/x.png"><math><mi href="/m"></mi></math>`)
	for _, c := range []struct {
		tag, attr string
		want      Kind
	}{
		{"meta", "content", Navigation}, {"span", "title", 0}, {"link", "href", 0}, {"input", "src", 0}, {"mi", "href", 0},
	} {
		var el *html.Node
		for n := root; n != nil; n = htmlparse.NextNode(n, root) {
			if n.Type == html.ElementNode && n.Data == c.tag {
				el = n
				break
			}
		}
		if el == nil {
			t.Fatalf("no %s in the page", c.tag)
		}
		if got := AttrKind(el, c.attr); got != c.want {
			t.Errorf("AttrKind(%s, %s) = %v, want %v", c.tag, c.attr, got, c.want)
		}
	}
}
