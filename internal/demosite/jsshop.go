package demosite

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// The JavaScript shop under /js/: pages whose products only a browser
// sees, each built a way the web builds them. Nothing else on the site
// links /js/, so the crawls of the classic shop (and PerfectCrawl) do not
// reach it; its ground truth is JSTruth.
//
//	/js/                      static index: links to the four pages below
//	/js/inline.html           products inserted by an inline script from a literal
//	/js/fetch.html            products built from a fetch() of /js/api/fetch.json;
//	                          it also fetch()es /private/prices.json, which
//	                          robots.txt disallows (the page needs no answer)
//	/js/app/                  a client-side router: its product links
//	                          (/js/app/product/<id>) are built by the script from
//	                          /js/api/app.json and followed with history.pushState
//	/js/app/product/<id>      the router's product page: the same shell, which
//	                          fetch()es /js/api/product/<id>.json and shows it
//	/js/more.html             the first JSPerPage products from /js/api/more-1.json
//	                          and a "load more" button (#more) fetching the next
//	                          page, /js/api/more-<n>.json, removed after the last
//
// Each product is shown as
//
//	<div class="js-product" data-id="17"><h3 class="title">…</h3><p class="price">51.77</p><p class="upc">…</p></div>
//
// and every page marks <html class="ready"> once it is built (the static
// index from the start), so a renderer can wait for "css:html.ready".

// JSPerSection is how many products each JavaScript page (the router's
// product pages together) shows; JSPerPage how many /js/more.html loads
// at a time.
const (
	JSPerSection = 6
	JSPerPage    = 3
)

// JSProduct is one product of the JavaScript shop's ground truth: what a
// browser shows on the page at URL (the path; for /js/more.html, after
// "load more" was clicked until it went).
type JSProduct struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Price string `json:"price"`
	UPC   string `json:"upc"`
}

// jsShop is the JavaScript shop's products, by page.
type jsShop struct {
	inline, fetch, app, more []*item
	byID                     map[int]*item // the router's
}

// buildJSShop takes the JavaScript shop's products from the catalogue:
// the first public UTF-8 products that answer at once and directly,
// JSPerSection for each page (fewer when the catalogue is too small).
func buildJSShop(items []*item) jsShop {
	var pick []*item
	for _, it := range items {
		if len(pick) == 4*JSPerSection {
			break
		}
		if !it.discontinued && it.failure == failNone && it.redirect == redirectNone && it.charset == csUTF8 {
			pick = append(pick, it)
		}
	}
	n := len(pick) / 4 // JSPerSection, but fewer on a tiny site
	js := jsShop{inline: pick[:n], fetch: pick[n : 2*n], app: pick[2*n : 3*n], more: pick[3*n : 4*n], byID: map[int]*item{}}
	for _, it := range js.app {
		js.byID[it.id] = it
	}
	return js
}

// JSTruth returns the products a browser shows on the JavaScript shop's
// pages, sorted by URL, then UPC.
func (s *Site) JSTruth() []JSProduct {
	var out []JSProduct
	add := func(url string, its []*item) {
		for _, it := range its {
			out = append(out, JSProduct{URL: url, Title: it.Title, Price: it.Price, UPC: it.UPC})
		}
	}
	add("/js/inline.html", s.js.inline)
	add("/js/fetch.html", s.js.fetch)
	add("/js/more.html", s.js.more)
	for _, it := range s.js.app {
		add("/js/app/product/"+strconv.Itoa(it.id), []*item{it})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].URL != out[j].URL {
			return out[i].URL < out[j].URL
		}
		return out[i].UPC < out[j].UPC
	})
	return out
}

// AbsURL returns p.URL resolved against base.
func (p JSProduct) AbsURL(base string) string { return strings.TrimRight(base, "/") + p.URL }

// jsCard is what every page's script shares: card(p) builds a product's
// element, show(ps) appends them to #products, ready() marks the page built.
const jsCard = `function card(p) {
  const d = document.createElement('div'); d.className = 'js-product'; d.dataset.id = p.id;
  for (const [tag, cls] of [['h3', 'title'], ['p', 'price'], ['p', 'upc']]) {
    const e = document.createElement(tag); e.className = cls; e.textContent = p[cls]; d.append(e);
  }
  return d;
}
function show(ps) { const m = document.getElementById('products'); for (const p of ps) m.append(card(p)); }
function ready() { document.documentElement.classList.add('ready'); }
`

// jsPage is the HTML of a page of the JavaScript shop.
func jsPage(title, htmlClass, body, script string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"")
	if htmlClass != "" {
		b.WriteString(` class="` + htmlClass + `"`)
	}
	b.WriteString(">\n<head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) + " | JavaScript shop</title></head>\n<body>\n")
	b.WriteString(`<p class="nav"><a href="/js/">JavaScript shop</a></p>` + "\n")
	b.WriteString("<h1>" + html.EscapeString(title) + "</h1>\n" + body + "\n")
	if script != "" {
		b.WriteString("<script>\n" + jsCard + script + "</script>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// jsJSON is an item as the shop's API gives it.
type jsJSON struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Price string `json:"price"`
	UPC   string `json:"upc"`
}

func jsItems(its []*item) []jsJSON {
	out := make([]jsJSON, len(its))
	for i, it := range its {
		out[i] = jsJSON{ID: it.id, Title: it.Title, Price: it.Price, UPC: it.UPC}
	}
	return out
}

// jsonText is v as JSON, safe inside a <script> (json.Marshal escapes <, >
// and &).
func jsonText(v any) string {
	b, _ := json.Marshal(v) // slices of plain structs: cannot fail
	return string(b)
}

// serveJS answers the paths under /js/.
func (s *Site) serveJS(w http.ResponseWriter, r *http.Request, path string) {
	page := func(build func() string) {
		send(w, r, s.cache.get(path, func() *response { return htmlResponse(http.StatusOK, build()) }))
	}
	api := func(v any) {
		send(w, r, s.cache.get(path, func() *response {
			return &response{status: http.StatusOK, ctype: ctJSON, body: []byte(jsonText(v) + "\n")}
		}))
	}
	switch {
	case path == "/js":
		redirect(w, "/js/")
	case path == "/js/":
		page(func() string {
			return jsPage("Built in the browser", "ready", `<ul>
<li><a href="inline.html">Products from an inline script</a></li>
<li><a href="fetch.html">Products from a fetch() of JSON</a></li>
<li><a href="app/">A client-side router</a></li>
<li><a href="more.html">Load more</a></li>
</ul>`, "")
		})
	case path == "/js/inline.html":
		page(func() string {
			return jsPage("Products from an inline script", "", `<div id="products"></div>`,
				"show("+jsonText(jsItems(s.js.inline))+");\nready();\n")
		})
	case path == "/js/fetch.html":
		page(func() string {
			return jsPage("Products from a fetch() of JSON", "", `<div id="products"></div>`,
				"fetch('/private/prices.json').catch(() => {});\n"+
					"fetch('/js/api/fetch.json').then(r => r.json()).then(ps => { show(ps); ready(); });\n")
		})
	case path == "/js/more.html":
		page(func() string {
			return jsPage("Load more", "", `<div id="products"></div>
<button id="more" type="button">Load more</button>`, jsMoreScript)
		})
	case path == "/js/app/":
		page(s.jsApp)
	case strings.HasPrefix(path, "/js/app/product/"):
		id, ok := parseID(path[len("/js/app/product/"):])
		if !ok || s.js.byID[id] == nil {
			notFound(w, r)
			return
		}
		page(s.jsApp)
	case path == "/js/api/fetch.json":
		api(jsItems(s.js.fetch))
	case path == "/js/api/app.json":
		api(jsItems(s.js.app))
	case strings.HasPrefix(path, "/js/api/product/") && strings.HasSuffix(path, ".json"):
		id, ok := parseID(strings.TrimSuffix(path[len("/js/api/product/"):], ".json"))
		if !ok || s.js.byID[id] == nil {
			notFound(w, r)
			return
		}
		api(jsItems([]*item{s.js.byID[id]})[0])
	case strings.HasPrefix(path, "/js/api/more-") && strings.HasSuffix(path, ".json"):
		n, ok := parseID(strings.TrimSuffix(path[len("/js/api/more-"):], ".json"))
		pages := (len(s.js.more) + JSPerPage - 1) / JSPerPage
		if !ok || n > pages {
			notFound(w, r)
			return
		}
		api(struct {
			Products []jsJSON `json:"products"`
			Next     string   `json:"next,omitempty"`
		}{jsItems(s.js.more[(n-1)*JSPerPage : min(n*JSPerPage, len(s.js.more))]), jsMoreNext(n, pages)})
	default:
		notFound(w, r)
	}
}

func jsMoreNext(n, pages int) string {
	if n == pages {
		return ""
	}
	return fmt.Sprintf("/js/api/more-%d.json", n+1)
}

// jsMoreScript loads the first page of /js/more.html and each next one
// when #more is clicked; the button goes after the last.
const jsMoreScript = `let next = '/js/api/more-1.json';
const more = document.getElementById('more');
async function load() {
  const page = await (await fetch(next)).json();
  show(page.products);
  next = page.next;
  if (!next) more.remove();
}
more.addEventListener('click', load);
load().then(ready);
`

// jsApp is the router's shell, served for /js/app/ and its product pages.
func (s *Site) jsApp() string {
	return jsPage("A client-side router", "", `<nav id="menu"></nav>
<div id="products"></div>`, `const menu = document.getElementById('menu');
const main = document.getElementById('products');
async function route() {
  const m = location.pathname.match(/^\/js\/app\/product\/(\d+)$/);
  main.replaceChildren();
  if (m) {
    show([await (await fetch('/js/api/product/' + m[1] + '.json')).json()]);
  }
  ready();
}
async function links() {
  for (const p of await (await fetch('/js/api/app.json')).json()) {
    const a = document.createElement('a');
    a.href = '/js/app/product/' + p.id;
    a.textContent = p.title;
    a.addEventListener('click', e => { e.preventDefault(); history.pushState(null, '', a.href); route(); });
    menu.append(a, ' ');
  }
}
window.addEventListener('popstate', route);
links().then(route);
`)
}
