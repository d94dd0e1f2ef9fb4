package cextract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// Field is one named value of an item: NAME=SELECTOR, or NAME[]=SELECTOR for
// every value as a JSON array.
type Field struct {
	Name string
	All  bool
	Sel  *Selector
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
	sel, err := Compile(src)
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

// ItemRule makes items from a page: one per element Each matches, or one for
// the whole page when Each is nil, with Fields evaluated relative to it. It
// reuses a buffer between pages: not safe for concurrent use.
type ItemRule struct {
	Fields []Field
	Each   *Selector
	// Raw keeps the white space around values (it is trimmed by default).
	Raw bool

	buf bytes.Buffer
	enc *json.Encoder
}

// Extract returns the data object of each item found on d, fields in order.
// An item none of whose fields has a value is left out and counted in empty.
// A field whose selector fails is left out of its item and reported in errs.
func (r *ItemRule) Extract(d *Doc) (items []json.RawMessage, empty int, errs []error) {
	contexts := []*html.Node{d.Root}
	if r.Each != nil {
		var err error
		if contexts, err = r.Each.Elements(d, d.Root); err != nil {
			return nil, 0, []error{&FieldError{"--each", err}}
		}
	}
	for _, ctx := range contexts {
		data, n, ferrs := r.object(d, ctx)
		errs = append(errs, ferrs...)
		if n == 0 {
			empty++
			continue
		}
		items = append(items, data)
	}
	return items, empty, errs
}

// object builds the data object for one context node and returns it with
// the number of fields it holds.
func (r *ItemRule) object(d *Doc, ctx *html.Node) (json.RawMessage, int, []error) {
	if r.enc == nil {
		r.enc = json.NewEncoder(&r.buf)
		r.enc.SetEscapeHTML(false)
	}
	r.buf.Reset()
	r.buf.WriteByte('{')
	n := 0
	var errs []error
	for _, f := range r.Fields {
		mark := r.buf.Len()
		if n > 0 {
			r.buf.WriteByte(',')
		}
		r.encode(f.Name)
		r.buf.WriteByte(':')
		ok, err := r.value(d, ctx, f)
		if err != nil {
			errs = append(errs, &FieldError{"-f " + f.Name, err})
		}
		if !ok {
			r.buf.Truncate(mark)
			continue
		}
		n++
	}
	r.buf.WriteByte('}')
	return bytes.Clone(r.buf.Bytes()), n, errs
}

// value writes field f's value and reports whether it had one.
func (r *ItemRule) value(d *Doc, ctx *html.Node, f Field) (bool, error) {
	if !f.All {
		v, ok, err := f.Sel.First(d, ctx)
		if ok {
			r.encodeValue(v)
		}
		return ok, err
	}
	r.buf.WriteByte('[')
	n := 0
	err := f.Sel.each(d, ctx, func(v Value) bool {
		if v.Blank() {
			return true
		}
		if n > 0 {
			r.buf.WriteByte(',')
		}
		r.encodeValue(v)
		n++
		return true
	})
	r.buf.WriteByte(']')
	return n > 0, err
}

func (r *ItemRule) encodeValue(v Value) {
	switch v.Kind {
	case Number, Boolean:
		r.buf.WriteString(v.Text)
	default:
		s := v.Text
		if !r.Raw {
			s = strings.TrimSpace(s)
		}
		r.encode(s)
	}
}

// encode writes s as a JSON string, without HTML escaping.
func (r *ItemRule) encode(s string) {
	_ = r.enc.Encode(s) // a string always encodes; to a bytes.Buffer it cannot fail
	r.buf.Truncate(r.buf.Len() - 1)
}
