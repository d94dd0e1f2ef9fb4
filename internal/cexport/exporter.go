package cexport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/record"
)

// exporter writes items in one format. Begin is called once before the
// first item and End once after the last (also when the input ended early
// or the run was interrupted, so the document is always complete). Write
// gets one item's members in document order; values are valid JSON. Flush
// pushes what is buffered to the output. An exporter is not safe for
// concurrent use; after an error the output is broken and only End may
// still be called.
type exporter interface {
	Begin() error
	Write(fields []record.Field) error
	Flush() error
	End() error
}

// exportTarget is where an exporter writes and what it may need to know
// about it.
type exportTarget struct {
	w *bufio.Writer
	// name is the output file for messages ("" for stdout).
	name string
	// resumed is where an export appended to a file goes on: what the file
	// has (zero for a new export).
	resumed resumePoint
	// seal, when set, writes a document's closing after what was flushed,
	// so the file is valid between flushes; without it (stdout, a pipe)
	// the closing is written at End.
	seal func(closing string) error
	// warn reports a problem with the data that does not stop the export.
	warn func(format string, a ...any)
	// notInHeader reports the fields of the item being written that a
	// table format's header lacks (left out of its row): notIn says where
	// the header came from, hint how to have them in it.
	notInHeader func(fields []string, notIn, hint string)
	// xmlNames, when set, is shared by the exporters of one run (one per
	// batch file), so a key renamed for XML is reported once a run, not
	// once a batch.
	xmlNames *warnOnce
}

// newExporter returns the exporter for the validated options o.
func newExporter(o *Options, t exportTarget) exporter {
	switch o.format {
	case formatJSON:
		return newJSONExporter(t)
	case formatCSV, formatTSV, formatMD:
		return newCSVExporter(o, t)
	case formatXML:
		return newXMLExporter(o, t)
	}
	return &jsonlExporter{w: t.w}
}

// maxWarnings caps the distinct warnings of one kind (hostile input can
// have millions of distinct keys); one more line says the rest are muted.
const maxWarnings = 100

// warnOnce prints each distinct warning key once, up to maxWarnings; then
// one line says the rest are not reported.
type warnOnce struct {
	warn func(format string, a ...any)
	what string // e.g. "fields not in the CSV header", for that line
	seen map[string]bool
	n    int
}

func (w *warnOnce) do(key string, format string, a ...any) {
	if w.warn == nil || w.n > maxWarnings || w.seen[key] {
		return
	}
	w.n++
	if w.n > maxWarnings {
		w.warn("more %s; not reporting them any more", w.what)
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[key] = true
	w.warn(format, a...)
}

// appendObject appends fields as one compact JSON object. Keys are
// re-quoted (escapes normalized), values are compacted but otherwise kept
// byte for byte, so numbers stay exact.
func appendObject(dst []byte, fields []record.Field) []byte {
	dst = append(dst, '{')
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = record.AppendString(dst, f.Key)
		dst = append(dst, ':')
		dst = appendCompact(dst, f.Value)
	}
	return append(dst, '}')
}

// appendCompact appends the JSON value v without insignificant white space
// and with invalid UTF-8 (which encoding/json lets through inside strings)
// replaced by U+FFFD, so the output is always valid UTF-8 JSON.
func appendCompact(dst []byte, v json.RawMessage) []byte {
	start := len(dst)
	if bytes.ContainsAny(v, " \t\r\n") {
		buf := bytes.NewBuffer(dst)
		if json.Compact(buf, v) == nil {
			dst = buf.Bytes()
		} else {
			dst = append(dst[:start], v...)
		}
	} else {
		dst = append(dst, v...)
	}
	if !utf8.Valid(dst[start:]) {
		// The rule the records are mended by: a U+FFFD for each bad byte.
		fixed := record.Mend(dst[start:])
		dst = append(dst[:start], fixed...)
	}
	return dst
}

// jsonString decodes the JSON string v, taking the fast path when it has
// no escapes.
func jsonString(v json.RawMessage) string {
	if len(v) >= 2 && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return string(v[1 : len(v)-1])
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return string(v)
	}
	return s
}

// trimBuf drops a buffer that grew for one huge item, so it is not kept.
func trimBuf(b []byte) []byte {
	if cap(b) > 1<<20 {
		return nil
	}
	return b[:0]
}
