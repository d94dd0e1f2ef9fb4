package main

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// writeTruth prints the shop's products (-truth) with absolute URLs as JSON
// lines or CSV.
func writeTruth(w io.Writer, products []demosite.Product, base, format string) error {
	header := []string{"url", "title", "price", "upc", "availability", "category", "rating", "description"}
	return writeRows(w, products, format, header, func(p *demosite.Product) []string {
		return []string{p.AbsURL(base), p.Title, p.Price, p.UPC, strconv.Itoa(p.Availability),
			p.Category, strconv.Itoa(p.Rating), p.Description}
	}, func(p *demosite.Product) { p.URL = p.AbsURL(base) })
}

// writeJSTruth prints the JavaScript shop's products (-truth -js) with
// absolute URLs as JSON lines or CSV, in the columns of
// testdata/rules/demo-js.yml.
func writeJSTruth(w io.Writer, products []demosite.JSProduct, base, format string) error {
	header := []string{"url", "title", "price", "upc"}
	return writeRows(w, products, format, header, func(p *demosite.JSProduct) []string {
		return []string{p.AbsURL(base), p.Title, p.Price, p.UPC}
	}, func(p *demosite.JSProduct) { p.URL = p.AbsURL(base) })
}

// writeRows writes rows as CSV (header, then row of each) or as JSON lines
// (each row after abs has made its URL absolute).
func writeRows[T any](w io.Writer, rows []T, format string, header []string, row func(*T) []string, abs func(*T)) error {
	if format == "csv" {
		cw := csv.NewWriter(w)
		cw.Write(header)
		for i := range rows {
			cw.Write(row(&rows[i]))
		}
		cw.Flush()
		return cw.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		abs(&r)
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
