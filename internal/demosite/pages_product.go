package demosite

import (
	"strconv"
)

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
	p.w(`<p class="price_color">£`, s.price(it), `</p>
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
<th>Price (excl. tax)</th><td>£`, s.price(it), `</td>
</tr>
<tr>
<th>Price (incl. tax)</th><td>£`, s.price(it), `</td>
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
