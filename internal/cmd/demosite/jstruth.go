package main

import (
	"encoding/csv"
	"encoding/json"
	"io"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// writeJSTruth prints the JavaScript shop's products (-truth -js) with
// absolute URLs as JSON lines or CSV, in the columns of
// testdata/rules/demo-js.yml.
func writeJSTruth(w io.Writer, products []demosite.JSProduct, base, format string) error {
	if format == "csv" {
		cw := csv.NewWriter(w)
		cw.Write([]string{"url", "title", "price", "upc"})
		for _, p := range products {
			cw.Write([]string{p.AbsURL(base), p.Title, p.Price, p.UPC})
		}
		cw.Flush()
		return cw.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range products {
		p.URL = p.AbsURL(base)
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	return nil
}
