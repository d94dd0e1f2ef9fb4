package cextract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/csvfeed"
	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
)

// itemWriter builds the data of items into a reused buffer. One is used by
// one goroutine at a time.
type itemWriter struct {
	buf  bytes.Buffer
	enc  *json.Encoder
	pctx process.Context
	page *page
	tr   *ruleTrace // set while explaining
	errs []error
}

// itemResult is what one item rule gave on one page.
type itemResult struct {
	items   []json.RawMessage
	empty   int               // contexts that gave no field at all
	missing []string          // per dropped item, its first missing required field
	badRows int               // CSV rows with the wrong number of cells
	renamed []csvfeed.Renamed // CSV columns renamed, to be reported
}

// extract runs rule r on page p.
func (w *itemWriter) extract(r *itemRule, p *page) itemResult {
	var res itemResult
	w.page = p
	w.pctx = process.Context{Base: p.base}
	var contexts []any
	switch {
	case r.csv != nil:
		contexts, res.badRows, res.renamed = csvContexts(p, r.csv)
	case r.each != nil:
		var err error
		if contexts, err = r.each.contexts(p, nil); err != nil {
			w.fail(r, nil, "each", err)
			return res
		}
	default:
		contexts = []any{nil}
	}
	if w.tr != nil {
		w.tr.contexts = len(contexts)
	}
	for _, ctx := range contexts {
		w.buf.Reset()
		var n int
		var missing string
		if r.csv != nil && r.fields == nil {
			n = w.wholeRow(ctx.(*csvRow))
		} else {
			n, missing = w.object(r, r.fields, ctx)
		}
		switch {
		case missing != "":
			res.missing = append(res.missing, missing)
		case n == 0:
			res.empty++
		default:
			res.items = append(res.items, bytes.Clone(w.buf.Bytes()))
		}
	}
	return res
}

func (w *itemWriter) fail(r *itemRule, f *field, where string, err error) {
	switch {
	case f != nil && f.flag:
		err = &FieldError{"-f " + f.path, err}
	case f != nil:
		err = fmt.Errorf("%s, field %q: %v", describeRule("item", r.name, r.file, r.pos), f.path, err)
	case r.pos.Line == 0:
		err = &FieldError{"--" + where, err}
	default:
		err = fmt.Errorf("%s: %s: %v", describeRule("item", r.name, r.file, r.pos), where, err)
	}
	w.errs = append(w.errs, err)
	if w.tr != nil && f != nil {
		w.tr.field(f.path).addReason(err.Error())
	}
}

// object writes one object of fields in ctx and returns how many fields it
// holds, or the first required field that has no value.
func (w *itemWriter) object(r *itemRule, fs []*field, ctx any) (int, string) {
	w.buf.WriteByte('{')
	n := 0
	missing := ""
	for _, f := range fs {
		mark := w.buf.Len()
		if n > 0 {
			w.buf.WriteByte(',')
		}
		w.buf.Write(f.key)
		ok, _ := w.value(r, f, ctx)
		if !ok {
			w.buf.Truncate(mark)
			if f.required && missing == "" {
				missing = f.path
				if w.tr == nil {
					return 0, missing // no need to look further
				}
				w.tr.field(f.path).required = true
			}
			continue
		}
		n++
	}
	w.buf.WriteByte('}')
	if missing != "" {
		return 0, missing
	}
	return n, ""
}

// value writes the value of field f and reports whether it had one.
func (w *itemWriter) value(r *itemRule, f *field, ctx any) (bool, string) {
	var ft *fieldTrace
	if w.tr != nil {
		ft = w.tr.field(f.path)
		ft.evaluated++
	}
	if f.fields != nil {
		return w.nested(r, f, ctx, ft)
	}
	var why func(proc, reason string)
	if ft != nil {
		why = func(proc, reason string) { ft.addReason(reason) }
	}
	found := 0
	if !f.all && f.lazy {
		// The first value that comes through the processors; stop there.
		var got process.Value
		ok := false
		err := f.src.values(w.page, ctx, func(v process.Value) bool {
			if v.Blank() {
				return true
			}
			found++
			if v.Kind == process.String && !f.raw {
				v.Text = strings.TrimSpace(v.Text)
			}
			if len(f.chain) == 0 {
				got, ok = v, true
				return false
			}
			if out := f.chain.ApplyOne(&w.pctx, v, why); len(out) > 0 {
				got, ok = out[0], true
				return false
			}
			return true
		})
		if err != nil {
			w.fail(r, f, "", err)
		}
		if ft != nil {
			ft.found += found
		}
		if ok {
			w.writeValue(got)
			if ft != nil {
				ft.withValue++
				ft.sample(got)
			}
		}
		return ok, ""
	}
	var vals []process.Value
	err := f.src.values(w.page, ctx, func(v process.Value) bool {
		if v.Blank() {
			return true
		}
		if v.Kind == process.String && !f.raw {
			v.Text = strings.TrimSpace(v.Text)
		}
		vals = append(vals, v)
		return true
	})
	if err != nil {
		w.fail(r, f, "", err)
	}
	if ft != nil {
		ft.found += len(vals)
	}
	if len(f.chain) > 0 {
		vals = f.chain.Apply(&w.pctx, vals, why)
	}
	if len(vals) == 0 {
		return false, ""
	}
	if ft != nil {
		ft.withValue++
		ft.sample(vals[0])
	}
	if !f.all || f.chain.Single() {
		w.writeValue(vals[0])
		return true, ""
	}
	w.buf.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.writeValue(v)
	}
	w.buf.WriteByte(']')
	return true, ""
}

// nested writes a nested object, or with each a list of them.
func (w *itemWriter) nested(r *itemRule, f *field, ctx any, ft *fieldTrace) (bool, string) {
	if f.each == nil {
		n, missing := w.object(r, f.fields, ctx)
		if missing != "" && ft != nil {
			ft.addReason(fmt.Sprintf("the nested object lacks its required field %q", missing))
		}
		if n > 0 && missing == "" && ft != nil {
			ft.withValue++
			if ft.first == "" {
				ft.first = fmt.Sprintf("{%d field(s)}", n)
			}
		}
		return n > 0 && missing == "", ""
	}
	contexts, err := f.each.contexts(w.page, ctx)
	if err != nil {
		w.fail(r, f, "", err)
		return false, ""
	}
	w.buf.WriteByte('[')
	count := 0
	for _, c := range contexts {
		mark := w.buf.Len()
		if count > 0 {
			w.buf.WriteByte(',')
		}
		n, missing := w.object(r, f.fields, c)
		if n == 0 || missing != "" {
			w.buf.Truncate(mark)
			continue
		}
		count++
	}
	w.buf.WriteByte(']')
	if count > 0 && ft != nil {
		ft.withValue++
		if ft.first == "" {
			ft.first = fmt.Sprintf("[%d object(s) of %d element(s)]", count, len(contexts))
		}
	}
	if count == 0 && ft != nil {
		ft.addReason(fmt.Sprintf("each found %d elements, none gave an object", len(contexts)))
	}
	return count > 0, ""
}

func (w *itemWriter) writeValue(v process.Value) {
	if v.Kind == process.String {
		w.encode(v.Text)
		return
	}
	w.buf.WriteString(v.Text)
}

// encode writes s as a JSON string, without HTML escaping.
func (w *itemWriter) encode(s string) {
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.buf)
		w.enc.SetEscapeHTML(false)
	}
	if simpleString(s) {
		w.buf.WriteByte('"')
		w.buf.WriteString(s)
		w.buf.WriteByte('"')
		return
	}
	_ = w.enc.Encode(s) // a string always encodes; to a bytes.Buffer it cannot fail
	w.buf.Truncate(w.buf.Len() - 1)
}

// simpleString reports whether s is written in JSON as it is, in quotes.
func simpleString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// csvContexts are the rows of a CSV feed after its header (the first row,
// unless the rule names the columns). Rows with another number of cells
// are skipped and counted, as CSVFeedSpider does. renamed are the columns
// the header could not name as it is (repeated or blank headers), the
// first time the page's header is read.
func csvContexts(p *page, o *rules.CSVOptions) (out []any, bad int, renamed []csvfeed.Renamed) {
	t := p.csv(o)
	h, rows := t.first, t.rows
	if o.Headers != nil {
		h = newCSVHeader(o.Headers)
	} else if h == nil {
		return nil, 0, nil
	} else {
		rows = rows[1:]
	}
	if !h.reported {
		h.reported = true
		renamed = h.renamed
	}
	for _, row := range rows {
		if len(row) != len(h.names) {
			bad++
			continue
		}
		out = append(out, &csvRow{header: h, cells: row})
	}
	return out, bad, renamed
}

// wholeRow writes a CSV row as an object of all its columns.
func (w *itemWriter) wholeRow(row *csvRow) int {
	w.buf.WriteByte('{')
	for i, name := range row.header.names {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.encode(name)
		w.buf.WriteByte(':')
		w.encode(row.cells[i])
	}
	w.buf.WriteByte('}')
	return len(row.header.names)
}
