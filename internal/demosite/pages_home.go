package demosite

import (
	"strconv"
)

// renderHome renders "/": every category, plus links to the private area,
// the calendar trap, the about page and two dead links.
func (s *Site) renderHome() string {
	p := s.newPage("/")
	p.head(csUTF8, "All products", "A deterministic demo shop for testing crawlers.", "", false)
	p.w(`<ul class="breadcrumb">
<li class="active">Home</li>
</ul>
<div class="row">
`)
	p.sidebar()
	p.w(`<div class="col-sm-8 col-md-9">
<div class="page-header action">
<h1>Welcome to the `, siteName, `</h1>
</div>
<p>Browse our categories:</p>
<ul class="categories">
`)
	for _, c := range s.cats {
		p.w(`<li><a href="`, p.link(c.path), `">`, esc(c.name), `</a> (`, strconv.Itoa(len(c.items)), ")</li>\n")
	}
	p.w(`</ul>
<h2>Elsewhere on this site</h2>
<ul class="elsewhere">
<li><a href="`, p.link("/calendar/2026/01/"), `">Events calendar</a></li>
<li><a href="`, p.link("/about.html"), `">About us</a></li>
<li><a href="`, p.link("/private/"), `">Staff area</a></li>
<li><a href="`, p.link("/old-catalogue/"), `">Old catalogue</a></li>
<li><a href="`, p.link("/news/2019/launch.html"), `">Launch news (2019)</a></li>
</ul>
</div>
</div>
`)
	p.foot()
	return p.String()
}

// renderAbout renders the static /about.html.
func (s *Site) renderAbout() string {
	p := s.newPage("/")
	p.head(csUTF8, "About", "About this site.", "", false)
	p.w(`<ul class="breadcrumb">
<li><a href="./">Home</a></li>
<li class="active">About</li>
</ul>
<div class="row">
<div class="col-sm-8 col-md-9">
<h1>About this site</h1>
<p>This shop does not exist. It is generated from a fixed seed by the crawlutils
demosite package, so that crawlers can be tested against the same site every time.</p>
<p>It has the usual problems of real websites: pages in legacy character sets,
redirects, dead links, pages that fail once, a robots.txt, sitemaps and an
<a href="calendar/2026/01/">endless calendar</a>.</p>
</div>
</div>
`)
	p.foot()
	return p.String()
}
