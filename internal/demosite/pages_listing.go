package demosite

import (
	"strconv"
)

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
<p class="price_color">£`, s.price(it), `</p>
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
