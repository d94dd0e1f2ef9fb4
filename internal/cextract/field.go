package cextract

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// Field is one named value of an item given on the command line:
// NAME=SELECTOR, or NAME[]=SELECTOR for every value as a JSON array.
type Field struct {
	Name string
	All  bool
	Sel  *selector.Selector
}

// ParseField compiles a -f argument, "NAME=SELECTOR" or "NAME[]=SELECTOR".
// The name is everything before the first "=" (so the selector may contain
// "="); errors name the field.
func ParseField(spec string) (Field, error) {
	name, src, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || name == "[]" {
		return Field{}, fmt.Errorf("%q: want NAME=SELECTOR or NAME[]=SELECTOR", spec)
	}
	f := Field{Name: name}
	if n, all := strings.CutSuffix(name, "[]"); all {
		f.Name, f.All = strings.TrimSpace(n), true
	}
	sel, err := selector.Compile(src)
	if err != nil {
		return Field{}, fmt.Errorf("%s: %w", f.Name, err)
	}
	f.Sel = sel
	return f, nil
}

// FieldError is a selector that failed on one page.
type FieldError struct {
	Where string // "-f price" or "--each"
	Err   error
}

func (e *FieldError) Error() string { return e.Where + ": " + e.Err.Error() }

// ItemRule makes items from an HTML page with command-line fields: one per
// element Each matches, or one for the whole page when Each is nil, with
// Fields evaluated relative to it. It reuses buffers between pages: not
// safe for concurrent use.
type ItemRule struct {
	Fields []Field
	Each   *selector.Selector
	// Raw keeps the white space around values (it is trimmed by default).
	Raw bool

	r *itemRule
	w itemWriter
}

// Extract returns the data object of each item found on d, fields in order.
// An item none of whose fields has a value is left out and counted in empty.
// A field whose selector fails is left out of its item and reported in errs.
func (r *ItemRule) Extract(d *selector.Doc) (items []json.RawMessage, empty int, errs []error) {
	if r.r == nil {
		r.r = flagItemRule("item", r.Fields, r.Each, r.Raw)
	}
	url := ""
	if d.URL != nil {
		url = d.URL.String()
	}
	p := &page{raw: d.Record, doc: d, url: url, format: rules.HTML}
	r.w.errs = r.w.errs[:0]
	res := r.w.extract(r.r, p)
	return res.items, res.empty, append([]error(nil), r.w.errs...)
}
