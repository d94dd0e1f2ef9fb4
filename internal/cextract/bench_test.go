package cextract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// productPage generates a realistic product page of about 50 KB: navigation,
// a product with its details, a description, reviews, and about 100 links.
func productPage() string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A Light in the Attic | Books to Scrape</title>
<meta name="description" content="A Light in the Attic, poems by Shel Silverstein.">
<link rel="stylesheet" href="/static/main.css"><script>window.dataLayer = window.dataLayer || [];</script></head>
<body><header class="navbar"><a href="/" class="brand">Books to Scrape</a><ul class="nav">`)
	for i := range 20 {
		fmt.Fprintf(&b, `<li><a href="/catalogue/category/books/cat-%d/index.html">Category %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></header><div class="container"><ul class="breadcrumb"><li><a href="/">Home</a></li>
<li><a href="/catalogue/category/books_1/index.html">Books</a></li><li class="active">A Light in the Attic</li></ul>
<article class="product_page"><div class="row"><div class="col-sm-6"><img src="/media/cache/fe/72/fe72.jpg" alt="A Light in the Attic"></div>
<div class="col-sm-6 product_main"><h1>A Light in the Attic</h1><p class="price_color">£51.77</p>
<p class="instock availability"><i class="icon-ok"></i>
    In stock (22 available)
</p><p class="star-rating Three"><i class="icon-star"></i></p></div></div>
<div id="product_description" class="sub-header"><h2>Product Description</h2></div><p>`)
	for range 330 {
		b.WriteString(`It's hard to imagine a world without A Light in the Attic. This now-classic collection of poetry and drawings &amp; more. `)
	}
	b.WriteString(`</p><table class="table table-striped"><tr><th>UPC</th><td>a897fe39b1053632</td></tr>
<tr><th>Product Type</th><td>Books</td></tr><tr><th>Price (excl. tax)</th><td>£51.77</td></tr>
<tr><th>Tax</th><td>£0.00</td></tr><tr><th>Availability</th><td>In stock (22 available)</td></tr>
<tr><th>Number of reviews</th><td>0</td></tr></table><section class="reviews">`)
	for i := range 40 {
		fmt.Fprintf(&b, `<div class="review"><h4><a href="/reviews/%d#r">Review %d</a></h4><p class="text">Lovely poems, read them to my kids every night, number %d.</p><a href="/users/%d">user %d</a></div>`, i, i, i, i, i)
	}
	b.WriteString(`</section></article><ul class="pager"><li class="previous"><a href="../page-1.html">previous</a></li>
<li class="next"><a href="../page-3.html">next</a></li></ul></div><footer><a href="javascript:void(0)">top</a><a href="mailto:info@example.com">mail</a></footer></body></html>`)
	return b.String()
}

func BenchmarkExtract(b *testing.B) {
	body := productPage()
	o := Options{Type: "product", Links: true, MaxURLLength: DefaultMaxURLLength, Fields: []string{
		"title=h1", "price=p.price_color::text", "availability=normalize-space(//p[contains(@class, 'availability')])",
		"rating=p.star-rating::attr(class)", "upc=//th[text()='UPC']/following-sibling::td/text()",
		"description=#product_description + p", "category=ul.breadcrumb li:nth-child(2) a",
		"image=div.product_main ~ div img::attr(src)", "reviews=count(//div[@class='review'])", "review_texts[]=.review p.text",
	}}
	x, err := o.compile()
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(response(b, "https://books.example/catalogue/a-light-in-the-attic_1000/index.html", body,
		map[string]any{"url": "https://books.example/catalogue/a-light-in-the-attic_1000/index.html", "depth": 1, "crawlid": "c", "lease": "L1"}, nil) + "\n")
	var out bytes.Buffer
	tool := cli.NewTool("cextract", io.Discard)
	p := &processor{tool: tool, w: ndjson.NewWriter(&out), x: x}
	run := func() {
		out.Reset()
		for l, rec := range records(context.Background(), tool, ndjson.NewReader(nil, bytes.NewReader(line)), nil) {
			p.handle(l, rec.Envelope, rec.fields)
		}
		if err := p.w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	run()
	if n := bytes.Count(out.Bytes(), []byte("\n")); n < 100 || !bytes.Contains(out.Bytes(), []byte(`"kind":"item"`)) {
		b.Fatalf("%d records:\n%s", n, out.Bytes())
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

func TestProductPageIsRealistic(t *testing.T) {
	body := productPage()
	links, _ := (&LinkExtractor{}).Links(selector.ParseDoc(body, "https://books.example/catalogue/x/index.html"))
	if len(body) < 45<<10 || len(body) > 60<<10 || len(links) < 90 || len(links) > 120 {
		t.Fatalf("page is %d bytes with %d links, want ~50 KB and ~100", len(body), len(links))
	}
}

// BenchmarkDemoStream runs testdata/rules/demo.yml over the stored crawl of
// the demo site (product, listing and home pages, robots.txt, sitemaps),
// as cextract does on its input: read, parse, extract, write.
func BenchmarkDemoStream(b *testing.B) {
	data, err := os.ReadFile(demoResponsesFile)
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"-q", "-r", "../../testdata/rules/demo.yml"}
	n := bytes.Count(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if code := execute(context.Background(), args, bytes.NewReader(data), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "pages/s")
}
