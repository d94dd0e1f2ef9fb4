package demosite

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The link test bed: one page per way a page, its headers or a stylesheet
// can point at a URL, under /linkbed/. Each case leads to its own target
// (under /linkbed/t/, /linkbed/base/ for those resolved against a <base
// href>, /private/linkbed/ for those robots.txt disallows), and the site
// counts the requests for each target (BedFetched, GET
// /__demosite/linkbed). /linkbed/ links every HTML case page (and, as
// stylesheets, the two CSS ones). bedCases is the one list of the cases:
// cextract's tests, the pipeline tests and scripts/bench/linkbed.py all
// read it (LinkBed, or the JSON of /__demosite/linkbed).

// BedCase is one case of the link test bed.
type BedCase struct {
	Case   string `json:"case"`   // "01", "25a"…
	Kind   string `json:"kind"`   // the link_kind cextract gives it: navigation, resources, forms, scripts
	Source string `json:"source"` // the source cextract gives it: "a@href", "header:Link"…
	Method string `json:"method,omitempty"`
	Page   string `json:"page"`   // the path of the page the case is on
	Target string `json:"target"` // the path and query the case leads to
	// Robots: robots.txt disallows the target; a crawl discovers it and
	// does not fetch it.
	Robots bool `json:"robots,omitempty"`
}

// bedCase is a case as written: its page's markup (the body of an HTML
// page, or a stylesheet when css), headers, and what it leads to.
type bedCase struct {
	name, kind, source, method, target string
	page                               string // the page's name when shared with another case ("" : name)
	head, body                         string // markup in <head> and <body>
	header                             [2]string
	css                                bool // the page is a text/css stylesheet: body
	frameset                           bool // body is a <frameset>, no <body>
}

const bedPrefix = "/linkbed/"

var bedCases = []bedCase{
	// navigation
	{name: "01", kind: "navigation", source: "a@href", target: "/linkbed/t/01", body: `<a href="/linkbed/t/01">a href</a>`},
	{name: "02", kind: "navigation", source: "area@href", target: "/linkbed/t/02", body: `<map name="m"><area href="/linkbed/t/02" alt="area"></map>`},
	{name: "03", kind: "navigation", source: "a@xlink:href", target: "/linkbed/t/03", body: `<svg><a xlink:href="/linkbed/t/03"><text>xlink</text></a></svg>`},
	{name: "04", kind: "navigation", source: "a@href", target: "/linkbed/t/04", body: `<svg><a href="/linkbed/t/04"><text>SVG 2</text></a></svg>`},
	{name: "05", kind: "navigation", source: "frame@src", target: "/linkbed/t/05", frameset: true, body: `<frameset cols="50%,50%"><frame src="/linkbed/t/05"><frame></frameset>`},
	{name: "06", kind: "navigation", source: "iframe@src", target: "/linkbed/t/06", body: `<iframe src="/linkbed/t/06"></iframe>`},
	{name: "07", kind: "navigation", source: "iframe@longdesc", target: "/linkbed/t/07", body: `<iframe longdesc="/linkbed/t/07"></iframe>`},
	{name: "08", kind: "navigation", source: "img@longdesc", target: "/linkbed/t/08", body: `<img longdesc="/linkbed/t/08" alt="">`},
	{name: "09", kind: "navigation", source: "link@href", target: "/linkbed/t/09", head: `<link rel="next" href="/linkbed/t/09">`},
	{name: "10", kind: "navigation", source: "link@href", target: "/linkbed/t/10", head: `<link rel="prev" href="/linkbed/t/10">`},
	{name: "11", kind: "navigation", source: "link@href", target: "/linkbed/t/11", head: `<link rel="alternate" hreflang="fr" href="/linkbed/t/11">`},
	{name: "12", kind: "navigation", source: "link@href", target: "/linkbed/t/12", head: `<link rel="canonical" href="/linkbed/t/12">`},
	{name: "13", kind: "navigation", source: "meta@refresh", target: "/linkbed/t/13", head: `<meta http-equiv="refresh" content="30; url=/linkbed/t/13">`},
	{name: "14", kind: "navigation", source: "blockquote@cite", target: "/linkbed/t/14", body: `<blockquote cite="/linkbed/t/14">b</blockquote>`},
	{name: "15", kind: "navigation", source: "q@cite", target: "/linkbed/t/15", body: `<q cite="/linkbed/t/15">q</q>`},
	{name: "16", kind: "navigation", source: "del@cite", target: "/linkbed/t/16", body: `<del cite="/linkbed/t/16">d</del>`},
	{name: "17", kind: "navigation", source: "ins@cite", target: "/linkbed/t/17", body: `<ins cite="/linkbed/t/17">i</ins>`},
	{name: "18", kind: "navigation", source: "header:Link", target: "/linkbed/t/18", header: [2]string{"Link", `</linkbed/t/18>; rel="next"`}},
	{name: "19", kind: "navigation", source: "header:Refresh", target: "/linkbed/t/19", header: [2]string{"Refresh", "60; url=/linkbed/t/19"}},
	{name: "20", kind: "navigation", source: "header:Content-Location", target: "/linkbed/t/20", header: [2]string{"Content-Location", "/linkbed/t/20"}},
	{name: "21", kind: "navigation", source: "meta@content", target: "/linkbed/t/21", head: `<meta property="og:url" content="/linkbed/t/21">`},
	{name: "22", kind: "navigation", source: "a@href", target: "/linkbed/t/22", body: `<noscript><a href="/linkbed/t/22">noscript</a></noscript>`},
	{name: "23", kind: "navigation", source: "a@href", target: "/linkbed/base/t/23", head: `<base href="/linkbed/base/">`, body: `<a href="t/23">relative to base</a>`},
	{name: "69", kind: "navigation", source: "frame@src", target: "/linkbed/t/69", frameset: true, body: `<frameset rows="50%,50%"><frame><frameset cols="50%,50%"><frame><frame src="/linkbed/t/69"></frameset></frameset>`},
	{name: "55", kind: "navigation", source: "iframe@srcdoc a@href", target: "/linkbed/t/55", body: `<iframe srcdoc="<a href='/linkbed/t/55'>in srcdoc</a>"></iframe>`},
	{name: "73", kind: "navigation", source: "a@href", target: "/private/linkbed/73", body: `<a href="/private/linkbed/73">disallowed by robots.txt</a>`},
	// resources
	{name: "24", kind: "resources", source: "img@src", target: "/linkbed/t/24", body: `<img src="/linkbed/t/24" alt="">`},
	{name: "25a", kind: "resources", source: "img@srcset", target: "/linkbed/t/25a", page: "25", body: `<img srcset="/linkbed/t/25a 1x, /linkbed/t/25b 2x" alt="">`},
	{name: "25b", kind: "resources", source: "img@srcset", target: "/linkbed/t/25b", page: "25"},
	{name: "26", kind: "resources", source: "source@srcset", target: "/linkbed/t/26", body: `<picture><source srcset="/linkbed/t/26 1x"></picture>`},
	{name: "27", kind: "resources", source: "video@src", target: "/linkbed/t/27", body: `<video src="/linkbed/t/27"></video>`},
	{name: "28", kind: "resources", source: "video@poster", target: "/linkbed/t/28", body: `<video poster="/linkbed/t/28"></video>`},
	{name: "29", kind: "resources", source: "audio@src", target: "/linkbed/t/29", body: `<audio src="/linkbed/t/29"></audio>`},
	{name: "30", kind: "resources", source: "source@src", target: "/linkbed/t/30", body: `<video><source src="/linkbed/t/30"></video>`},
	{name: "31", kind: "resources", source: "track@src", target: "/linkbed/t/31", body: `<video><track src="/linkbed/t/31"></video>`},
	{name: "32", kind: "resources", source: "embed@src", target: "/linkbed/t/32", body: `<embed src="/linkbed/t/32">`},
	{name: "33", kind: "resources", source: "object@data", target: "/linkbed/t/33", body: `<object data="/linkbed/t/33"></object>`},
	{name: "34", kind: "resources", source: "param@value", target: "/linkbed/t/34", body: `<object><param name="movie" value="/linkbed/t/34"></object>`},
	{name: "35", kind: "resources", source: "script@src", target: "/linkbed/t/35", head: `<script src="/linkbed/t/35"></script>`},
	{name: "36", kind: "resources", source: "link@href", target: "/linkbed/t/36", head: `<link rel="stylesheet" href="/linkbed/t/36">`},
	{name: "37", kind: "resources", source: "link@href", target: "/linkbed/t/37", head: `<link rel="icon" href="/linkbed/t/37">`},
	{name: "38", kind: "resources", source: "link@imagesrcset", target: "/linkbed/t/38", head: `<link rel="preload" as="image" imagesrcset="/linkbed/t/38 1x">`},
	{name: "39", kind: "resources", source: "link@href", target: "/linkbed/t/39", head: `<link rel="manifest" href="/linkbed/t/39">`},
	{name: "40", kind: "resources", source: "html@manifest", target: "/linkbed/t/40"},   // the page's <html manifest>
	{name: "41", kind: "resources", source: "body@background", target: "/linkbed/t/41"}, // the page's <body background>
	{name: "42", kind: "resources", source: "td@background", target: "/linkbed/t/42", body: `<table><tr><td background="/linkbed/t/42">td</td></tr></table>`},
	{name: "43", kind: "resources", source: "input@src", target: "/linkbed/t/43", body: `<input type="image" src="/linkbed/t/43" alt="go">`},
	{name: "44", kind: "resources", source: "img@lowsrc", target: "/linkbed/t/44", body: `<img lowsrc="/linkbed/t/44" alt="">`},
	{name: "45", kind: "resources", source: "a@ping", target: "/linkbed/t/45", body: `<a href="#top" ping="/linkbed/t/45">ping</a>`},
	{name: "46", kind: "resources", source: "style css:url", target: "/linkbed/t/46", head: `<style>.hero { background: url('/linkbed/t/46'); }</style>`},
	{name: "47", kind: "resources", source: "style css:@import", target: "/linkbed/t/47", head: `<style>@import "/linkbed/t/47";</style>`},
	{name: "48", kind: "resources", source: "div@style css:url", target: "/linkbed/t/48", body: `<div style="background: url(/linkbed/t/48)">styled</div>`},
	{name: "49", kind: "resources", source: "image@href", target: "/linkbed/t/49", body: `<svg><image href="/linkbed/t/49"/></svg>`},
	{name: "50", kind: "resources", source: "use@href", target: "/linkbed/t/50", body: `<svg><use href="/linkbed/t/50#icon"/></svg>`},
	{name: "51", kind: "resources", source: "header:Link", target: "/linkbed/t/51", header: [2]string{"Link", `</linkbed/t/51>; rel=preload; as=image`}},
	{name: "52", kind: "resources", source: "meta@content", target: "/linkbed/t/52", head: `<meta property="og:image" content="/linkbed/t/52">`},
	{name: "53", kind: "resources", source: "style css:url", target: "/linkbed/t/53", head: `<style>.retina { background-image: image-set("/linkbed/t/53" 1x); }</style>`},
	{name: "54", kind: "resources", source: "comment link@href", target: "/linkbed/t/54", head: `<!--[if lt IE 9]><link rel="stylesheet" href="/linkbed/t/54"><![endif]-->`},
	{name: "56", kind: "resources", source: "iframe@srcdoc img@src", target: "/linkbed/base/t/56", head: `<base href="/linkbed/base/">`, body: `<iframe srcdoc="<img src='t/56'>"></iframe>`},
	{name: "57", kind: "resources", source: "script@href", target: "/linkbed/t/57", body: `<svg><script href="/linkbed/t/57"></script></svg>`},
	{name: "67", kind: "resources", source: "css:url", target: "/linkbed/t/67", css: true, body: "/* url(/linkbed/t/not-a-link) */\nbody { background: url(/linkbed/t/67); }\n"},
	{name: "68", kind: "resources", source: "css:@import", target: "/linkbed/t/68", css: true, body: `@import url("/linkbed/t/68");` + "\n"},
	{name: "74", kind: "resources", source: "img@src", target: "/private/linkbed/74", body: `<img src="/private/linkbed/74" alt="disallowed by robots.txt">`},
	// forms
	{name: "58", kind: "forms", source: "form@action", target: "/linkbed/t/58?q=x", body: `<form action="/linkbed/t/58"><input name="q" value="x"></form>`},
	{name: "59", kind: "forms", source: "form@action", target: "/linkbed/59.html?page=59", body: `<form><input name="page" value="59"></form>`}, // no action: the page
	{name: "60", kind: "forms", source: "form@action", method: "POST", target: "/linkbed/t/60", body: `<form method="post" action="/linkbed/t/60"><input name="u" value="me"></form>`},
	{name: "70", kind: "forms", source: "button@formaction", target: "/linkbed/t/70?v=1&b=go", page: "70", // formmethod=get in a POST form
		body: `<form method="post" action="/linkbed/t/72"><input name="v" value="1"><button name="b" value="go" formaction="/linkbed/t/70" formmethod="get">find</button><input type="submit" name="s" value="save" formaction="/linkbed/t/71"></form>`},
	{name: "71", kind: "forms", source: "input@formaction", method: "POST", target: "/linkbed/t/71", page: "70"},
	{name: "72", kind: "forms", source: "form@action", method: "POST", target: "/linkbed/t/72", page: "70"},
	// scripts: guesses
	{name: "61", kind: "scripts", source: "script js:string", target: "/linkbed/t/61", body: `<script>var next = "/linkbed/t/61"; window.a = 1 / 2;</script>`},
	{name: "62", kind: "scripts", source: "a@onclick js:string", target: "/linkbed/t/62", body: `<a href="#top" onclick="location.href='/linkbed/t/62'">onclick</a>`},
	{name: "63", kind: "scripts", source: "a@href js:string", target: "/linkbed/t/63", body: `<a href="javascript:window.open('/linkbed/t/63')">js</a>`},
	{name: "64", kind: "scripts", source: "div@data-url", target: "/linkbed/t/64", body: `<div data-url="/linkbed/t/64">data</div>`},
	{name: "65", kind: "scripts", source: "div@data-config json:string", target: "/linkbed/t/65", body: `<div data-config='{"more": "/linkbed/t/65"}'>data</div>`},
	{name: "66", kind: "scripts", source: "script json:string", target: "/linkbed/t/66", head: `<script type="application/ld+json">{"@context": "https://schema.org", "url": "/linkbed/t/66"}</script>`},
}

// bedPageName is the name of c's page: its own, or the case it shares a
// page with.
func (c *bedCase) pageName() string {
	if c.page != "" {
		return c.page
	}
	return c.name
}

func (c *bedCase) pagePath() string {
	if c.css {
		return bedPrefix + c.pageName() + ".css"
	}
	return bedPrefix + c.pageName() + ".html"
}

// LinkBed returns the cases of the link test bed, in the order of the
// table: navigation, resources, forms, scripts.
func LinkBed() []BedCase {
	out := make([]BedCase, len(bedCases))
	for i := range bedCases {
		c := &bedCases[i]
		out[i] = BedCase{Case: c.name, Kind: c.kind, Source: c.source, Method: c.method, Page: c.pagePath(), Target: c.target,
			Robots: strings.HasPrefix(c.target, "/private/")}
	}
	return out
}

// LinkBedPages returns the paths of the bed's pages: the index, then each
// case's page once, in the order of the table.
func LinkBedPages() []string {
	out := []string{bedPrefix}
	seen := map[string]bool{}
	for i := range bedCases {
		if p := bedCases[i].pagePath(); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// bedKey is how the site counts a request for a target: its path and
// query, after "POST " for a POST.
func bedKey(method, pathQuery string) string {
	if method == http.MethodPost {
		return "POST " + pathQuery
	}
	return pathQuery
}

// BedFetched returns how many times each target of the link test bed was
// requested since New or the last Reset, by path and query ("POST " first
// for a POST), targets never requested included with 0.
func (s *Site) BedFetched() map[string]int {
	out := map[string]int{}
	for i := range bedCases {
		out[bedKey(bedCases[i].method, bedCases[i].target)] = 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, n := range s.bed {
		out[k] = n
	}
	return out
}

// isBedPath reports whether path is the test bed's: a page or a target.
func isBedPath(path string) bool {
	return strings.HasPrefix(path, bedPrefix) || strings.HasPrefix(path, "/private/linkbed/")
}

// serveBed answers the test bed's pages and targets (GET, HEAD or POST).
func (s *Site) serveBed(w http.ResponseWriter, r *http.Request, path string) {
	pathQuery := path
	if r.URL.RawQuery != "" {
		pathQuery += "?" + r.URL.RawQuery
	}
	if _, ok := s.BedFetched()[bedKey(r.Method, pathQuery)]; ok {
		s.mu.Lock()
		s.bed[bedKey(r.Method, pathQuery)]++
		s.mu.Unlock()
		if !strings.HasSuffix(path, ".html") { // the page of a form without action is its target
			w.Header().Set("Content-Type", ctHTML)
			_, _ = w.Write([]byte("<!DOCTYPE html>\n<html><head><title>target</title></head><body><p>A target of the link test bed.</p></body></html>\n"))
			return
		}
	}
	if path == bedPrefix {
		w.Header().Set("Content-Type", ctHTML)
		_, _ = w.Write([]byte(bedIndex()))
		return
	}
	var cases []*bedCase
	for i := range bedCases {
		if bedCases[i].pagePath() == path {
			cases = append(cases, &bedCases[i])
		}
	}
	if len(cases) == 0 || r.Method == http.MethodPost {
		notFound(w, r)
		return
	}
	c := cases[0]
	if c.css {
		w.Header().Set("Content-Type", "text/css")
		_, _ = w.Write([]byte(c.body))
		return
	}
	for _, c := range cases {
		if c.header[0] != "" {
			w.Header().Set(c.header[0], c.header[1])
		}
	}
	w.Header().Set("Content-Type", ctHTML)
	_, _ = w.Write([]byte(bedPage(cases)))
}

// bedPage is the HTML page of cases (those sharing a page).
func bedPage(cases []*bedCase) string {
	c := cases[0]
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html")
	if c.name == "40" {
		b.WriteString(` manifest="/linkbed/t/40"`)
	}
	b.WriteString(">\n<head>\n<meta charset=\"utf-8\">\n<title>Link test bed: case " + c.pageName() + "</title>\n")
	for _, c := range cases {
		if c.head != "" {
			b.WriteString(c.head + "\n")
		}
	}
	b.WriteString("</head>\n")
	if c.frameset {
		b.WriteString(c.body + "\n</html>\n")
		return b.String()
	}
	b.WriteString("<body")
	if c.name == "41" {
		b.WriteString(` background="/linkbed/t/41"`)
	}
	b.WriteString(">\n<p>" + c.kind + ", " + c.source + "</p>\n")
	for _, c := range cases {
		if c.body != "" {
			b.WriteString(c.body + "\n")
		}
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// bedIndex links every page of the bed: HTML pages by <a href>, the
// stylesheets by <link rel=stylesheet>.
func bedIndex() string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>Link test bed</title>\n")
	pages := LinkBedPages()[1:]
	for _, p := range pages {
		if strings.HasSuffix(p, ".css") {
			b.WriteString(`<link rel="stylesheet" href="` + p + "\">\n")
		}
	}
	b.WriteString("</head>\n<body>\n<h1>Link test bed</h1>\n<ul>\n")
	for _, p := range pages {
		if strings.HasSuffix(p, ".html") {
			b.WriteString(`<li><a href="` + p + `">` + strings.TrimSuffix(strings.TrimPrefix(p, bedPrefix), ".html") + "</a></li>\n")
		}
	}
	b.WriteString("</ul>\n</body>\n</html>\n")
	return b.String()
}

// bedReport is the JSON of GET /__demosite/linkbed.
type bedReport struct {
	Cases   []BedCase      `json:"cases"`
	Fetched map[string]int `json:"fetched"`
}

func (s *Site) serveBedReport(w http.ResponseWriter, r *http.Request) {
	rep := bedReport{Cases: LinkBed(), Fetched: s.BedFetched()}
	body, err := json.Marshal(rep)
	if err != nil {
		panic("demosite: encoding the link test bed: " + err.Error())
	}
	send(w, r, &response{status: http.StatusOK, ctype: ctJSON, body: append(body, '\n')})
}
