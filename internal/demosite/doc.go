// Package demosite is a deterministic, generated web shop served on the
// loopback interface, for testing, benchmarking and demonstrating crawlers.
// It is modelled on books.toscrape.com and has the web's usual problems:
// legacy charsets, gzip, redirects, a meta refresh, dead links, pages
// reached several ways, pages that fail once (503, 500, connection reset),
// robots.txt, sitemaps, a <base href>, and an endless crawler trap.
//
// The same Options always produce the same site, byte for byte, on any
// machine: all content comes from PCG streams seeded with Options.Seed. A
// product's own fields (title, price, UPC, …) depend only on (Seed, id);
// its category and its related links also on Options.Products. Truth
// returns exactly the records a correct crawl must produce.
//
// The site counts what crawlers do to it (see Counting requests), and
// PerfectCrawl says what a perfect crawl needs, so tests and benchmarks can
// assert "exactly the requests a perfect crawl makes". Shape counts its
// pages and realities.
//
// # URL layout
//
//	/                                  home: links to every category, /about.html,
//	                                   /calendar/2026/01/, /private/, and two
//	                                   dead links (/old-catalogue/, /news/2019/launch.html)
//	/about.html                        static page
//	/robots.txt                        "Disallow: /private/" and "Sitemap: <base>/sitemap.xml"
//	/sitemap.xml                       sitemap index → /sitemap-categories.xml and
//	                                   /sitemap-products-1.xml … -N.xml (≤1000 URLs each)
//	/category/<slug>/                  listing page 1 (PerPage products per page)
//	/category/<slug>/page-<n>.html     listing page n, 2 ≤ n ≤ last
//	/catalogue/<slug>_<id>/            product page (canonical URL), ids 1…Products
//	/p/<id>                            301 → /catalogue/<slug>_<id>/ or → /item/<id>
//	/item/<id>                         301 → /catalogue/<slug>_<id>/
//	/go/<id>                           200, a small page whose
//	                                   <meta http-equiv="refresh" content="0; url=../catalogue/<slug>_<id>/">
//	                                   (and one link) moves on to the product
//	/media/<id>.jpg                    fake JPEG (starts FF D8 FF), one per product
//	/calendar/<YYYY>/<MM>/             crawler trap: links to the previous and next month
//	/private/, /private/page-<n>.html  disallowed listing pages (n = 2…5)
//	/private/catalogue/<slug>_<id>/    disallowed product pages, ids 900001…900040
//	/linkbed/                          the link test bed (linkbed.go, LinkBed): links to
//	                                   one page per way of pointing at a URL,
//	                                   /linkbed/<case>.html (or .css), each leading to
//	                                   its own target under /linkbed/t/, /linkbed/base/
//	                                   or, disallowed by robots.txt, /private/linkbed/
//	/__demosite/stats                  GET: the request counters as JSON (Stats)
//	/__demosite/linkbed                GET: the link test bed's cases and how many
//	                                   times each target was requested, as JSON
//	/__demosite/reset                  POST: Reset, answered 204
//
// /p/, /item/ and /go/ answer 404 for discontinued and unknown ids.
// Nothing links /__demosite/ or /linkbed/, and requests to /__demosite/
// are not counted. The bed's pages and targets also answer POST.
// Anything else answers 404 with a small HTML body. /category/<slug>,
// /catalogue/<slug>_<id> and /private (no trailing slash) answer 301 to the
// slashed path. All links in pages are relative ("page-2.html",
// "../../catalogue/blue-widget_17/"). Every listing page links to every page
// of its category (numbered pagination) plus previous/next links; each
// listed product is linked twice (image and title). The listing pages of
// the "Kitchen" category carry <base href="/catalogue/">, and their links
// are relative to that base ("blue-widget_17/", "../category/kitchen/page-3.html"):
// resolving them against the page URL instead gives 404s. Every public
// product page ends with a related block,
//
//	<section class="related"><h2>You may also like</h2><ul><li><a href="…">title</a></li>…</ul></section>
//
// of 3 or 4 links to other products (fewer on tiny sites; see Related
// links).
//
// There are 16 categories, sorted by name; four tiny ones have exactly 1, 2,
// 3 and 5 products (Antiques, Stationery, Health, Crafts) and the others
// share the rest unevenly ("Books" gets about 28%, "Travel" well under 1%).
// Within a category, products are listed in id order.
//
// # Realities, by product id
//
// Each is a pure function of the id, so tests can predict it:
//
//   - Discontinued: id%37 == 0. Listed in its category and linked directly,
//     but the product page answers 404. Not in the truth, nor the sitemaps.
//     None of the realities below applies to discontinued products.
//   - Redirected: id%66 == 4 (one hop: /p/<id> → canonical) and id%66 == 37
//     (two hops: /p/<id> → /item/<id> → canonical). Listing pages link
//     /p/<id> instead of the canonical URL. The truth URL is the canonical one.
//   - One-time failures: the product page fails the first time it is
//     requested (any method) since New or Reset, then answers 200 (they
//     are in the truth):
//     id%50 == 7: 503 with a Retry-After header, Options.RetryAfter
//     (default "Retry-After: 1"; e.g. /catalogue/ancient-radio-mk-ii_7/);
//     id%100 == 23: 503 without Retry-After;
//     id%100 == 41: 500;
//     id%100 == 89: the connection is reset (hijacked and closed with
//     SO_LINGER 0) without any response. Where the connection cannot be
//     hijacked (HTTP/2, httptest.ResponseRecorder) the handler panics
//     with http.ErrAbortHandler instead.
//     The classes are disjoint, about 1% of the products each (2% for the
//     first), and may overlap with the charsets and the redirects.
//   - Legacy charset: the page is encoded in a legacy charset declared only
//     in the first element of <head>; the Content-Type header is plain
//     "text/html":
//     id%20 == 3: windows-1252, <meta http-equiv="Content-Type" content="text/html; charset=windows-1252">;
//     id%50 == 11: ISO-8859-1, <meta charset="iso-8859-1">;
//     id%50 == 19: Shift_JIS, <meta charset="shift_jis">;
//     id%50 == 29: EUC-KR, <meta http-equiv="Content-Type" content="text/html; charset=euc-kr">.
//     Titles and descriptions of these pages contain characters of their
//     charset (é ü ß “ ” € for windows-1252, é ü ß for ISO-8859-1, Japanese
//     for Shift_JIS, Korean for EUC-KR), encoded natively. Characters the
//     charset cannot represent (such as "£" in Shift_JIS and EUC-KR, or "é"
//     of "Home Décor" in Shift_JIS) are written as numeric character
//     references (&#163;). All other pages are UTF-8 with
//     "Content-Type: text/html; charset=utf-8" and <meta charset="utf-8">.
//   - Padded heading: id%9 == 2. The <h1> has newlines and tabs/spaces
//     before and after the title.
//   - Markup-escaped text: titles with id%7 == 1 contain "&" (written
//     &amp;), with id%7 == 2 contain "'" (written &#39;); descriptions often
//     contain &, ', ", < and > (all written as entities).
//   - Non-ASCII in UTF-8 pages: id%10 == 6 Latin accents, id%25 == 8
//     Japanese, id%25 == 18 Korean, id%25 == 13 curly quotes/€/dash.
//
// Site-wide: every HTML response (pages, 404s, 500s, 503s) is gzip-compressed
// with "Content-Encoding: gzip" when the request's Accept-Encoding allows
// gzip; Content-Length is always set. HEAD is supported; other methods get
// 405. Options.Latency delays every response.
//
// # Related links
//
// Product pages link each other, relatively like every link of the site
// ("../blue-widget_17/", "../../p/17", "../../go/17"), so that a crawler
// reaches some pages two ways. A product's special link, if it has one,
// sits in the related block of its linker: the next product, or the
// previous one when the next is discontinued or missing.
//
//   - Redirected products (listed through /p/<id>) are linked by their
//     canonical URL: reached directly and through a 301, in either order.
//   - id%100 == 61, not redirected: linked through /p/<id> (one hop), so
//     listed directly and reached through a 301 as well.
//   - id%100 == 73, not redirected: linked through /go/<id>, the meta
//     refresh page, besides the listing's direct link.
//   - Discontinued products are linked by their canonical URL: a dead link
//     between items (the listings link them too).
//
// The other links of a block, 3 or 4 links in all, go to random other
// public products by their canonical URL. Discontinued and private pages
// have no related block.
//
// # Counting requests
//
// The site records every request but those under /__demosite/: method,
// path, status and arrival time (Requests keeps the first 100 000), counts
// per path (Hits) and the counters of Stats, served as JSON by GET
// /__demosite/stats: requests, by_status, pages, duplicates,
// early_retries, expected and more. Reset, or POST /__demosite/reset,
// clears them and makes every one-time failure fail again.
//
// PerfectCrawl (Stats' expected) is the number of requests of a perfect
// crawl in the scope of testdata/rules/demo.yml — home page → categories →
// listing pages → products, product pages → related links; /go/ pages are
// not followed further: robots.txt once, every page once, every redirect
// source (/p/, /item/) and /go/ page once, every dead link once, and one
// retry for every one-time failure. A crawler that makes more requests has
// them counted in duplicates: for each path, its requests beyond the first
// (the second too, for a one-time-failure page). One that retries a 503
// before its Retry-After has passed (less 1 ms) has it counted in
// early_retries. With the default Options, PerfectCrawl is 3496.
//
// # Truth and how to extract it
//
// A product page yields each truth field as follows (CSS selector; XPath):
//
//   - title: the text of the only <h1>, with leading and trailing white
//     space removed (strings.TrimSpace); inner white space is always a
//     single space. "div.product_main h1"; //div[contains(@class,"product_main")]/h1.
//   - price: the text of the first p.price_color with the leading "£"
//     removed, e.g. "51.77". "div.product_main p.price_color";
//     //div[contains(@class,"product_main")]/p[@class="price_color"].
//   - upc: the <td> of the table row whose <th> is "UPC" (the first row).
//     "table.table-striped tr:nth-child(1) td"; //th[.="UPC"]/following-sibling::td.
//   - availability: the integer inside "In stock (22 available)" in
//     p.instock.availability (also in the "Availability" table row).
//     "div.product_main p.availability"; //p[contains(@class,"availability")].
//   - category: the text of the third <li> of ul.breadcrumb, trimmed.
//     "ul.breadcrumb li:nth-child(3) a"; //ul[@class="breadcrumb"]/li[3]/a.
//   - rating: the second class of p.star-rating (One…Five) mapped to 1…5;
//     product pages also carry it as schema.org microdata:
//     //*[@itemprop="ratingValue"]/@content.
//   - description: the text of the <p> right after div#product_description,
//     exactly as decoded (no trimming needed; it is one line).
//     "#product_description + p"; //div[@id="product_description"]/following-sibling::p[1].
//   - url: the canonical URL the page was finally served from (after
//     redirects), "/catalogue/<slug>_<id>/".
//
// All text is after HTML entity decoding and charset decoding. Listing
// pages show titles shortened to 37 characters plus "..." (full title in
// the link's title attribute), so fields must come from product pages.
package demosite
