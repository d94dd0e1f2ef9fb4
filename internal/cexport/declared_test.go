package cexport

import (
	"slices"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
)

func TestDeclaredFields(t *testing.T) {
	const file = `
items:
  - name: page
    fields:
      url: '@url'
      title: h1
      dims: {fields: {w: .w, h: {fields: {cm: .cm}}}}
      offers: {each: li, fields: {price: .p}}
      tags: {css: .tag, all: true}
  - name: api
    match: {type: json}
    fields:
      id: .id
      meta: .meta
      blob: {jq: .b, all: true}
  - name: parsed
    fields:
      title: h1
      ld: {css: script, process: [json]}
  - name: feed
    csv: {headers: [sku, qty]}
  - name: rows
    csv: {delimiter: ';'}
  - name: product
    fields:
      title: h1
      image_urls: {css: img::attr(src), all: true}
    files: image_urls
`
	f, err := rules.Parse("r.yml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		types   []string
		flatten bool
		cols    []string
		open    string
	}{
		{name: "every rule, names once, in order", cols: []string{"url", "title", "dims", "offers", "tags", "id", "meta", "blob", "ld", "sku", "qty", "image_urls", "files"}, open: "rows"},
		{name: "files: adds the files column", types: []string{"product"}, flatten: true, cols: []string{"title", "image_urls", "files"}},
		{name: "--type", types: []string{"page", "feed"}, cols: []string{"url", "title", "dims", "offers", "tags", "sku", "qty"}},
		{name: "--flatten: nested objects dotted, lists one cell", types: []string{"page"}, flatten: true,
			cols: []string{"url", "title", "dims.w", "dims.h.cm", "offers", "tags"}},
		{name: "--flatten: a jq value may be an object", types: []string{"api"}, flatten: true, cols: []string{"id", "meta", "blob"}, open: "api"},
		{name: "--flatten: so may a json value", types: []string{"parsed"}, flatten: true, cols: []string{"title", "ld"}, open: "parsed"},
		{name: "without --flatten objects are cells", types: []string{"api", "parsed"}, cols: []string{"id", "meta", "blob", "title", "ld"}},
		{name: "no rule of the type", types: []string{"nope"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := declaredFields(f, tt.types, tt.flatten)
			if !slices.Equal(d.columns, tt.cols) || d.open != tt.open {
				t.Errorf("columns %q open %q, want %q open %q", d.columns, d.open, tt.cols, tt.open)
			}
			if d.reached != (len(tt.cols) > 0) {
				t.Errorf("reached %v", d.reached)
			}
		})
	}
}

// The header names the fields as the rules file writes their keys, as
// cextract names them in the items: 01 is "01", 1 and 01 are two columns.
func TestDeclaredFieldsAreKeysAsWritten(t *testing.T) {
	const file = `
items:
  - name: y
    fields: {01: h1, 1: h1, 1_000: h1, 0x1F: h1, 1.50: h1, yes: h1, True: h1, ~: h1, nested: {fields: {007: b}}}
  - name: feed
    csv: {headers: [01, 0o17]}
`
	f, err := rules.Parse("r.yml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		flatten bool
		cols    []string
	}{
		{"fields and csv headers", false, []string{"01", "1", "1_000", "0x1F", "1.50", "yes", "True", "~", "nested", "0o17"}},
		{"--flatten", true, []string{"01", "1", "1_000", "0x1F", "1.50", "yes", "True", "~", "nested.007", "0o17"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := declaredFields(f, nil, tt.flatten); !slices.Equal(d.columns, tt.cols) {
				t.Errorf("columns %q, want %q", d.columns, tt.cols)
			}
		})
	}
}
