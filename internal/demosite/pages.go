package demosite

import (
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const siteName = "Crawlutils Demo Store"

var esc = html.EscapeString

// rel returns the relative reference from a document whose base directory
// is fromDir (a path ending in "/") to target (an absolute path), the way
// a static site generator writes links: "../../catalogue/x_1/", "page-2.html",
// "./".
func rel(fromDir, target string) string {
	from := strings.Split(strings.Trim(fromDir, "/"), "/")
	if fromDir == "/" {
		from = nil
	}
	dirPart, file := target[:strings.LastIndex(target, "/")+1], target[strings.LastIndex(target, "/")+1:]
	to := strings.Split(strings.Trim(dirPart, "/"), "/")
	if dirPart == "/" {
		to = nil
	}
	common := 0
	for common < len(from) && common < len(to) && from[common] == to[common] {
		common++
	}
	var b strings.Builder
	for range len(from) - common {
		b.WriteString("../")
	}
	for _, seg := range to[common:] {
		b.WriteString(seg)
		b.WriteByte('/')
	}
	b.WriteString(file)
	if b.Len() == 0 {
		return "./"
	}
	return b.String()
}

// dirOf returns the directory part of path p ("/a/b.html" → "/a/").
func dirOf(p string) string { return p[:strings.LastIndex(p, "/")+1] }

// page accumulates one HTML document. dir is the directory relative links
// are written against (the <base href> when there is one).
type page struct {
	strings.Builder
	s   *Site
	dir string
}

func (s *Site) newPage(dir string) *page {
	p := &page{s: s, dir: dir}
	p.Grow(12 << 10)
	return p
}

func (p *page) w(parts ...string) {
	for _, x := range parts {
		p.WriteString(x)
	}
}

// link returns the relative reference to target from the page.
func (p *page) link(target string) string { return rel(p.dir, target) }

// inlineCSS is a realistic chunk of page weight shared by all pages.
const inlineCSS = `
body{font-family:"Helvetica Neue",Helvetica,Arial,sans-serif;font-size:14px;line-height:20px;color:#333;background-color:#fff;margin:0}
a{color:#08c;text-decoration:none}a:hover,a:focus{color:#005580;text-decoration:underline}
.container-fluid{padding-right:20px;padding-left:20px}.page_inner{max-width:1170px;margin:0 auto}
.header{background:#f5f5f5;border-bottom:1px solid #e5e5e5;padding:10px 0}.header .h1{font-size:24px;font-weight:bold}
.header small{color:#999;font-size:13px;margin-left:8px}
.breadcrumb{padding:8px 15px;margin:0 0 20px;list-style:none;background-color:#f5f5f5;border-radius:4px}
.breadcrumb>li{display:inline-block}.breadcrumb>li+li:before{content:"/\00a0";padding:0 5px;color:#ccc}
.breadcrumb>.active{color:#999}
.row{margin-left:-15px;margin-right:-15px}.row:after{clear:both;content:"";display:table}
.col-sm-4,.col-sm-6,.col-sm-8,.col-md-3,.col-md-9,.col-xs-6,.col-lg-3{position:relative;min-height:1px;padding-left:15px;padding-right:15px;float:left}
.col-sm-4{width:33.333%}.col-sm-6{width:50%}.col-sm-8{width:66.666%}.col-md-3{width:25%}.col-md-9{width:75%}
.side_categories{margin-bottom:20px}.nav-list{list-style:none;padding:0}.nav-list li a{display:block;padding:3px 15px}
.product_pod{height:326px;overflow:hidden;margin-bottom:20px}.product_pod .image_container{text-align:center;min-height:165px}
.product_pod h3{font-size:13px;line-height:1.2;margin:8px 0;height:2.4em;overflow:hidden}
.price_color{color:#458B00;font-size:18px;font-weight:bold;margin-bottom:8px}
.instock{color:#458B00}.availability{font-size:13px}
.star-rating{color:#E6CE31;font-size:14px;margin:0 0 8px}.star-rating i{font-style:normal}
.star-rating i:before{content:"\2605"}.star-rating.One i:nth-child(n+2),.star-rating.Two i:nth-child(n+3),
.star-rating.Three i:nth-child(n+4),.star-rating.Four i:nth-child(n+5){color:#ddd}
.pager{list-style:none;text-align:center;padding:0;margin:20px 0}.pager li{display:inline}
.pager li>a{display:inline-block;padding:5px 14px;background-color:#fff;border:1px solid #ddd;border-radius:15px}
.pager .next>a{float:right}.pager .previous>a{float:left}.pager .current{color:#999}
.pagination{display:inline-block;padding-left:0;margin:20px 0;border-radius:4px;list-style:none}
.pagination>li{display:inline}.pagination>li>a,.pagination>li>span{position:relative;float:left;padding:6px 12px;margin-left:-1px;line-height:1.428571429;text-decoration:none;background-color:#fff;border:1px solid #ddd}
.pagination>.active>span{z-index:2;color:#fff;background-color:#428bca;border-color:#428bca}
.table{width:100%;margin-bottom:20px;border-collapse:collapse}.table th,.table td{padding:8px;border-top:1px solid #ddd;text-align:left}
.table-striped tr:nth-child(odd)>td,.table-striped tr:nth-child(odd)>th{background-color:#f9f9f9}
.sub-header{border-bottom:1px solid #eee;margin:20px 0 10px}.sub-header h2{font-size:18px;margin:0 0 6px}
.alert{padding:15px;margin-bottom:20px;border:1px solid transparent;border-radius:4px}
.alert-warning{color:#c09853;background-color:#fcf8e3;border-color:#fbeed5}
.btn{display:inline-block;padding:6px 12px;font-size:14px;border:1px solid transparent;border-radius:4px;cursor:pointer}
.btn-primary{color:#fff;background-color:#428bca;border-color:#357ebd}.btn-block{display:block;width:100%}
.footer{border-top:1px solid #e5e5e5;margin-top:40px;padding:20px 0;color:#777;font-size:12px}
.footer ul{list-style:none;padding:0}.footer li{display:inline-block;margin-right:15px}
.calendar td{width:14%;height:60px;vertical-align:top;border:1px solid #eee}
`

// head writes everything up to and including the opening of the page body.
// The charset declaration is the first thing in <head>, well inside the
// first 1024 bytes where HTML sniffers look for it.
func (p *page) head(cs charset, title, description, baseHref string, noindex bool) {
	p.w("<!DOCTYPE html>\n<html lang=\"en-us\" class=\"no-js\">\n<head>\n", cs.metaTag(), "\n")
	p.w("<title>\n    ", esc(title), " | ", siteName, "\n</title>\n")
	if baseHref != "" {
		p.w(`<base href="`, baseHref, "\">\n")
	}
	p.w(`<meta name="created" content="2025-06-01 12:00:00">`, "\n")
	if description != "" {
		p.w(`<meta name="description" content="`, esc(description), "\">\n")
	}
	p.w(`<meta name="viewport" content="width=device-width">`, "\n")
	if noindex {
		p.w(`<meta name="robots" content="noindex,nofollow">`, "\n")
	} else {
		p.w(`<meta name="robots" content="NOARCHIVE,NOCACHE">`, "\n")
	}
	p.w("<style>", inlineCSS, "</style>\n</head>\n<body id=\"default\" class=\"default\">\n")
	p.w(`<header class="header container-fluid">
<div class="page_inner">
<div class="row">
<div class="col-sm-8 h1"><a href="`, p.link("/"), `">`, siteName, `</a><small> We love being scraped!</small></div>
<div class="col-sm-4"><ul class="nav"><li><a href="`, p.link("/"), `">Home</a></li><li><a href="`, p.link("/about.html"), `">About</a></li></ul></div>
</div>
</div>
</header>
<div class="container-fluid page">
<div class="page_inner">
`)
}

// sidebar writes the category navigation shown on most pages.
func (p *page) sidebar() {
	p.w(`<aside class="sidebar col-sm-4 col-md-3">
<div id="promotions_left"></div>
<div class="side_categories">
<ul class="nav nav-list">
<li>
<a href="`, p.link("/"), `">
    All products
</a>
<ul>
`)
	for _, c := range p.s.cats {
		p.w("<li>\n<a href=\"", p.link(c.path), "\">\n    ", esc(c.name), "\n</a>\n</li>\n")
	}
	p.w("</ul>\n</li>\n</ul>\n</div>\n</aside>\n")
}

// foot closes the page.
func (p *page) foot() {
	p.w(`</div>
</div>
<footer class="footer container-fluid">
<div class="page_inner">
<ul>
<li><a href="`, p.link("/"), `">Home</a></li>
<li><a href="`, p.link("/about.html"), `">About this site</a></li>
</ul>
<p>`, siteName, ` is a deterministic, generated website for testing web crawlers. Every product, price
and review on it is made up. Crawl it as much as you like; it is served from your own machine.</p>
<p class="copyright">Generated content. No rights reserved.</p>
</div>
</footer>
</body>
</html>
`)
}

var ratingWords = []string{"", "One", "Two", "Three", "Four", "Five"}

func (p *page) stars(rating int) {
	p.w(`<p class="star-rating `, ratingWords[rating], "\">\n")
	for range 5 {
		p.w("    <i class=\"icon-star\"></i>\n")
	}
	p.w("</p>\n")
}

func mediaPath(id int) string { return "/media/" + strconv.Itoa(id) + ".jpg" }

// renderProduct renders a product detail page (UTF-8; the caller encodes).
func (s *Site) renderProduct(it *item) string {
	p := s.newPage(dirOf(it.URL))
	snippet := it.Description
	if r := []rune(snippet); len(r) > 120 {
		snippet = string(r[:120]) + "..."
	}
	p.head(it.charset, it.Title, snippet, "", it.private)
	listing := it.cat.path
	if it.private {
		listing = "/private/"
	}
	p.w(`<ul class="breadcrumb">
<li>
<a href="`, p.link("/"), `">Home</a>
</li>
<li>
<a href="`, p.link("/"), `">Products</a>
</li>
<li>
<a href="`, p.link(listing), `">`, esc(it.Category), `</a>
</li>
<li class="active">`, esc(it.Title), `</li>
</ul>
<div class="row">
`)
	p.sidebar()
	p.w(`<div class="col-sm-8 col-md-9">
<div id="messages"></div>
<div id="promotions"></div>
<article class="product_page"><!-- Start of product page -->
<div class="row">
<div class="col-sm-6">
<div id="product_gallery" class="carousel">
<div class="thumbnail">
<div class="carousel-inner">
<div class="item active">
<img src="`, p.link(mediaPath(it.id)), `" alt="`, esc(it.Title), `">
</div>
</div>
</div>
</div>
</div>
<div class="col-sm-6 product_main">
`)
	if it.padH1 {
		p.w("<h1>\n        ", esc(it.Title), "\n    \t</h1>\n")
	} else {
		p.w("<h1>", esc(it.Title), "</h1>\n")
	}
	avail := "In stock (" + strconv.Itoa(it.Availability) + " available)"
	p.w(`<p class="price_color">£`, it.Price, `</p>
<p class="instock availability">
    <i class="icon-ok"></i>
    `, avail, `
</p>
`)
	p.stars(it.Rating)
	// schema.org microdata, as real shops carry it for search engines: the
	// rating as a number (the class word above is for the stylesheet).
	p.w(`<div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">
<meta itemprop="ratingValue" content="`, strconv.Itoa(it.Rating), `"><meta itemprop="bestRating" content="5">
</div>
<hr/>
<div class="alert alert-warning" role="alert"><strong>Warning!</strong> This is a demo website for web scraping purposes. Prices and ratings here were randomly assigned and have no real meaning.</div>
<form id="add_to_basket_form" action="#" method="post" class="add-to-basket">
<button type="submit" class="btn btn-primary btn-block" data-loading-text="Adding...">Add to basket</button>
</form>
</div>
</div>
<div id="product_description" class="sub-header">
<h2>Product Description</h2>
</div>
<p>`, esc(it.Description), `</p>
<div class="sub-header">
<h2>Product Information</h2>
</div>
<table class="table table-striped">
<tr>
<th>UPC</th><td>`, it.UPC, `</td>
</tr>
<tr>
<th>Product Type</th><td>Goods</td>
</tr>
<tr>
<th>Price (excl. tax)</th><td>£`, it.Price, `</td>
</tr>
<tr>
<th>Price (incl. tax)</th><td>£`, it.Price, `</td>
</tr>
<tr>
<th>Tax</th><td>£0.00</td>
</tr>
<tr>
<th>Availability</th>
<td>`, avail, `</td>
</tr>
<tr>
<th>Number of reviews</th>
<td>0</td>
</tr>
</table>
<div id="reviews" class="reviews">
<div class="sub-header"><h2>Customer Reviews</h2></div>
<p>There are no reviews for this product yet. Reviews on this site are never real: every
product is generated from a fixed seed, so a crawler run today and a crawler run next year
see exactly the same bytes.</p>
</div>
`)
	p.relatedBlock(it.related)
	p.w(`</article><!-- End of product page -->
</div>
</div>
`)
	p.foot()
	return p.String()
}

// listing describes one listing page to render.
type listing struct {
	selfPath string // the page's own path
	baseHref string // "" or the <base href> value
	heading  string
	items    []*item // all items of the listing (all pages)
	page     int     // 1-based
	pages    int
	perPage  int
	pagePath func(n int) string
	noindex  bool
	// linkOf is the path a listing links an item through.
	linkOf func(*item) string
}

// renderListing renders a category (or private) listing page.
func (s *Site) renderListing(l listing) string {
	dir := dirOf(l.selfPath)
	if l.baseHref != "" {
		dir = l.baseHref
	}
	p := s.newPage(dir)
	title := l.heading
	if l.page > 1 {
		title += " - Page " + strconv.Itoa(l.page)
	}
	p.head(csUTF8, title, "", l.baseHref, l.noindex)
	p.w(`<ul class="breadcrumb">
<li>
<a href="`, p.link("/"), `">Home</a>
</li>
<li>
<a href="`, p.link("/"), `">Products</a>
</li>
<li class="active">`, esc(l.heading), `</li>
</ul>
<div class="row">
`)
	p.sidebar()
	lo := (l.page - 1) * l.perPage
	hi := min(lo+l.perPage, len(l.items))
	p.w(`<div class="col-sm-8 col-md-9">
<div class="page-header action">
<h1>`, esc(l.heading), `</h1>
</div>
<div id="messages"></div>
<div id="promotions"></div>
<form method="get" class="form-horizontal">
<div style="display:none"></div>
<strong>`, strconv.Itoa(len(l.items)), `</strong> results`)
	if hi > lo {
		p.w(` - showing <strong>`, strconv.Itoa(lo+1), `</strong> to <strong>`, strconv.Itoa(hi), `</strong>`)
	}
	p.w(".\n</form>\n<section>\n")
	if hi <= lo {
		p.w("<p>There are no products in this category yet.</p>\n")
	}
	p.w("<ol class=\"row\">\n")
	for _, it := range l.items[lo:hi] {
		href := p.link(l.linkOf(it))
		short := it.Title
		if r := []rune(short); len(r) > 40 {
			short = string(r[:37]) + "..."
		}
		p.w(`<li class="col-xs-6 col-sm-4 col-md-3 col-lg-3">
<article class="product_pod">
<div class="image_container">
<a href="`, href, `"><img src="`, p.link(mediaPath(it.id)), `" alt="`, esc(it.Title), `" class="thumbnail"></a>
</div>
`)
		p.stars(it.Rating)
		p.w(`<h3><a href="`, href, `" title="`, esc(it.Title), `">`, esc(short), `</a></h3>
<div class="product_price">
<p class="price_color">£`, it.Price, `</p>
<p class="instock availability">
    <i class="icon-ok"></i>
        In stock
</p>
<form><button type="submit" class="btn btn-primary btn-block" data-loading-text="Adding...">Add to basket</button></form>
</div>
</article>
</li>
`)
	}
	p.w("</ol>\n")
	p.pager(l)
	p.w("</section>\n</div>\n</div>\n")
	p.foot()
	return p.String()
}

// pager writes the previous/next pager and the numbered list of all pages.
func (p *page) pager(l listing) {
	if l.pages <= 1 {
		return
	}
	p.w("<div>\n<ul class=\"pager\">\n")
	if l.page > 1 {
		p.w(`<li class="previous"><a href="`, p.link(l.pagePath(l.page-1)), "\">previous</a></li>\n")
	}
	p.w(`<li class="current">`, "\n    Page ", strconv.Itoa(l.page), " of ", strconv.Itoa(l.pages), "\n</li>\n")
	if l.page < l.pages {
		p.w(`<li class="next"><a href="`, p.link(l.pagePath(l.page+1)), "\">next</a></li>\n")
	}
	p.w("</ul>\n<ul class=\"pagination\">\n")
	for n := 1; n <= l.pages; n++ {
		if n == l.page {
			p.w(`<li class="active"><span>`, strconv.Itoa(n), "</span></li>\n")
			continue
		}
		p.w(`<li><a href="`, p.link(l.pagePath(n)), `">`, strconv.Itoa(n), "</a></li>\n")
	}
	p.w("</ul>\n</div>\n")
}

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

// renderCalendar renders /calendar/YYYY/MM/, linking to the neighbouring
// months; the chain never ends within years 0001–9999.
func (s *Site) renderCalendar(year int, month time.Month) string {
	self := calendarPath(year, month)
	p := s.newPage(self)
	title := fmt.Sprintf("Events - %s %04d", month, year)
	p.head(csUTF8, title, "", "", false)
	p.w("<div class=\"row\">\n<div class=\"col-sm-8 col-md-9\">\n<h1>", title, "</h1>\n<ul class=\"pager\">\n")
	first := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	if prev := first.AddDate(0, -1, 0); prev.Year() >= 1 {
		p.w(`<li class="previous"><a href="`, p.link(calendarPath(prev.Year(), prev.Month())), "\">previous month</a></li>\n")
	}
	if next := first.AddDate(0, 1, 0); next.Year() <= 9999 {
		p.w(`<li class="next"><a href="`, p.link(calendarPath(next.Year(), next.Month())), "\">next month</a></li>\n")
	}
	p.w("</ul>\n<table class=\"calendar\">\n<tr>")
	for _, d := range []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"} {
		p.w("<th>", d, "</th>")
	}
	p.w("</tr>\n<tr>")
	col := (int(first.Weekday()) + 6) % 7
	for range col {
		p.w("<td></td>")
	}
	for d := first; d.Month() == month; d = d.AddDate(0, 0, 1) {
		if col == 7 {
			p.w("</tr>\n<tr>")
			col = 0
		}
		p.w("<td>", strconv.Itoa(d.Day()), "</td>")
		col++
	}
	p.w("</tr>\n</table>\n<p>No events scheduled.</p>\n</div>\n</div>\n")
	p.foot()
	return p.String()
}

func calendarPath(year int, month time.Month) string {
	return fmt.Sprintf("/calendar/%04d/%02d/", year, int(month))
}

// renderError renders a small error page.
func renderError(status int, message string) string {
	text := http.StatusText(status)
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
		strconv.Itoa(status) + " " + text + "</title>\n</head>\n<body>\n<h1>" +
		strconv.Itoa(status) + " " + text + "</h1>\n<p>" + esc(message) +
		"</p>\n<p><a href=\"/\">Back to the shop</a></p>\n</body>\n</html>\n"
}
