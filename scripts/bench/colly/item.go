package main

import (
	"encoding/csv"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"
	"github.com/gocolly/colly/v2"
	"golang.org/x/net/html"
)

var header = []string{"url", "title", "price", "upc", "availability", "category", "rating", "description"}

var (
	firstInt   = regexp.MustCompile(`-?\d+`)
	starRating = regexp.MustCompile(`star-rating (\w+)`)
	ratings    = map[string]string{"One": "1", "Two": "2", "Three": "3", "Four": "4", "Five": "5"}
)

// extractProduct returns a product page's fields in header's order, with
// testdata/rules/demo.yml's selectors; nil if a required field (title,
// price) is missing.
func extractProduct(e *colly.HTMLElement) []string {
	pm := e.DOM.Find("div.product_main")
	title, ok := text(pm.Find("h1"))
	price, ok2 := ownText(pm.Find("p.price_color"))
	if !ok || !ok2 {
		return nil
	}
	availability, _ := text(pm.Find("p.availability"))
	availability = firstInt.FindString(availability)
	rating := ""
	if m := starRating.FindStringSubmatch(pm.Find("p.star-rating").First().AttrOr("class", "")); m != nil {
		rating = ratings[m[1]]
	}
	upc, _ := text(e.DOM.Find("table.table-striped tr:nth-child(1) td"))
	category, _ := text(e.DOM.Find("ul.breadcrumb li:nth-child(3) a"))
	description, _ := text(e.DOM.Find("#product_description + p"))
	return []string{e.Request.URL.String(), title, strings.TrimPrefix(price, "£"), upc, availability, category, rating, description}
}

// text is the trimmed text content of the first match.
func text(s *goquery.Selection) (string, bool) {
	if s.Length() == 0 {
		return "", false
	}
	return strings.TrimSpace(s.First().Text()), true
}

// ownText is the first text node right inside the first match (Scrapy's
// "::text" with .get()).
func ownText(s *goquery.Selection) (string, bool) {
	if s.Length() == 0 {
		return "", false
	}
	for n := s.Get(0).FirstChild; n != nil; n = n.NextSibling {
		if n.Type == html.TextNode {
			return n.Data, true
		}
	}
	return "", false
}

// itemWriter writes products as CSV from many goroutines.
type itemWriter struct {
	mu  sync.Mutex
	csv *csv.Writer
	err error
}

func newItemWriter(w io.Writer) *itemWriter {
	iw := &itemWriter{csv: csv.NewWriter(w)}
	iw.err = iw.csv.Write(header)
	return iw
}

// write writes one product.
func (w *itemWriter) write(row []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.csv.Write(row)
	}
	return w.err
}

func (w *itemWriter) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.csv.Flush()
	if w.err != nil {
		return w.err
	}
	return w.csv.Error()
}
