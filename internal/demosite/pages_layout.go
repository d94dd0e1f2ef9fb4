package demosite

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
`, p.s.padding(), `<footer class="footer container-fluid">
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
