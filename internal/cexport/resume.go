package cexport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// Resuming an export: -o FILE appends to what an earlier run left in FILE
// (Scrapy's FEEDS overwrite: false), so rerunning a crawl loop that was
// killed completes its export. The file keeps its complete items; what
// follows the last of them is cut off: the item a run killed mid-write left
// unfinished. That item was never acknowledged (an ack passes on only once
// the items before it are fsynced), so its page is fetched again and the
// item written whole. Only a tail cut short is cut: a file damaged before
// its end, or not in the format, is refused and left as it is.
//
// A JSON array or an XML document goes on before its closing ("]",
// "</items>"), which is written again after the new items (sealedFile).

// resumePoint is where an export appended to a file goes on.
type resumePoint struct {
	// keep is how many bytes of the file stay: its complete records, and for
	// a JSON array or XML document everything before its closing.
	keep int64
	// closed says the file is a complete document whose closing follows
	// keep: it stays until the first new item replaces it. Otherwise what
	// follows keep (an unfinished item, blanks, or nothing) is cut off.
	closed bool
	// header is a CSV file's first record.
	header []string
	// opened says keep ends inside the JSON array or the XML root element.
	opened bool
	// items says the file keeps an item: a record after a CSV, TSV or
	// Markdown header, a JSON array member (the next one needs a comma),
	// an element in the XML root.
	items bool
	// root is the name of the XML file's root element.
	root string
}

// tailWindow is how much of a file's end is read to find a document's
// closing, and the chunk size of the backward scans.
const tailWindow = 64 << 10

// findResumePoint reads the export f (a regular file of size bytes, in o's
// format) and says where appending to it goes on. Its errors say why the
// file cannot be appended to.
func findResumePoint(f io.ReaderAt, size int64, o *Options) (resumePoint, error) {
	switch o.format {
	case formatJSONL:
		i, err := lastIndexByte(f, size, '\n')
		return resumePoint{keep: i + 1, items: i >= 0}, err
	case formatCSV:
		return resumeCSV(f, size, o.delimiter)
	case formatTSV, formatMD:
		return resumeLines(f, size, o.format)
	}
	end, err := dataEnd(f, size)
	if err != nil {
		return resumePoint{}, err
	}
	var rp resumePoint
	if o.format == formatJSON {
		rp, err = resumeJSON(f, end)
	} else {
		rp, err = resumeXML(f, end)
	}
	if end < size {
		rp.closed = false // the NULs go, and the closing with them
	}
	return rp, err
}

// cannotAppend is the error for a file that is not an export cexport can
// go on with.
func cannotAppend(format string, a ...any) error {
	return fmt.Errorf("%s; -o cannot append to it (repair it, or start a new export with -O)", fmt.Sprintf(format, a...))
}

// resumeCSV keeps the records that end with a line break; the first one is
// the header. A record cut short is either unterminated or in an unclosed
// quoted field at the end; an error before the end is damage.
func resumeCSV(f io.ReaderAt, size int64, delim rune) (resumePoint, error) {
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return resumePoint{}, err
	}
	// The byte order mark is not read as CSV: a quote after it would be a
	// "bare quote" in the first field.
	start := int64(0)
	var head [len(ndjson.BOM)]byte
	if n, _ := f.ReadAt(head[:], 0); string(head[:n]) == ndjson.BOM {
		start = int64(n)
	}
	r := csv.NewReader(bufio.NewReaderSize(io.NewSectionReader(f, start, size-start), tailWindow))
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	var rp resumePoint
	for first := true; ; first = false {
		rec, err := r.Read()
		if err == io.EOF {
			return rp, nil
		}
		end := start + r.InputOffset()
		var pe *csv.ParseError
		switch {
		case err == nil:
		case errors.Is(err, csv.ErrQuote) && end == size:
			return rp, nil // a quoted field cut short
		case errors.As(err, &pe):
			return rp, cannotAppend("%v", err)
		default:
			return rp, err
		}
		if end == size && last[0] != '\n' {
			return rp, nil // the last record, cut short
		}
		if first {
			rp.header = slices.Clone(rec)
		} else {
			rp.items = true
		}
		rp.keep = end
	}
}

// resumeLines keeps the lines of a TSV file or Markdown table that end
// with a line break; the first one is the header.
func resumeLines(f io.ReaderAt, size int64, format string) (resumePoint, error) {
	i, err := lastIndexByte(f, size, '\n')
	if err != nil || i < 0 {
		return resumePoint{}, err
	}
	lines := bufio.NewReader(io.NewSectionReader(f, 0, i+1))
	first, err := lines.ReadString('\n')
	if err != nil {
		return resumePoint{}, err
	}
	headerEnd := int64(len(first))
	first = strings.TrimSuffix(strings.TrimSuffix(first, "\n"), "\r")
	var header []string
	if format == formatTSV {
		for _, c := range strings.Split(first, "\t") {
			header = append(header, unescapeTSV(c))
		}
	} else {
		header = markdownCells(first)
		sep, err := lines.ReadString('\n') // |---|
		if err != nil && err != io.EOF {
			return resumePoint{}, err
		}
		headerEnd += int64(len(sep))
	}
	return resumePoint{keep: i + 1, header: fileHeader(header), items: i+1 > headerEnd}, nil
}

// fileHeader is the header h read from the start of a file, without the
// byte order mark a spreadsheet saving "CSV UTF-8" puts before its first
// name.
func fileHeader(h []string) []string {
	if len(h) > 0 {
		h[0] = strings.TrimPrefix(h[0], ndjson.BOM)
	}
	return h
}

// lastIndexByte returns the offset of the last c in the first size bytes
// of r, or -1.
func lastIndexByte(r io.ReaderAt, size int64, c byte) (int64, error) {
	buf := make([]byte, min(size, tailWindow))
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		b := buf[:end-start]
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return -1, err
		}
		if i := bytes.LastIndexByte(b, c); i >= 0 {
			return start + int64(i), nil
		}
		end = start
	}
	return -1, nil
}

// dataEnd returns size less the NUL bytes at the end of the file: what a
// crash can leave where unsynced data was to go (JSON and XML text never
// holds a raw NUL).
func dataEnd(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, min(size, tailWindow))
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		b := buf[:end-start]
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return size, err
		}
		if t := bytes.TrimRight(b, "\x00"); len(t) > 0 {
			return start + int64(len(t)), nil
		}
		end = start
	}
	return 0, nil
}

// nulStop reads r up to its first NUL byte. A crash (a power loss) can
// leave zeros where data written after the last fsync was to go, and what
// follows them was written later still: nothing from the first NUL on was
// acknowledged. JSON and XML text never holds a raw NUL.
type nulStop struct {
	r io.Reader
	// hit says the reading stopped at a NUL, not at the end.
	hit bool
}

func (n *nulStop) Read(p []byte) (int, error) {
	if n.hit {
		return 0, io.EOF
	}
	k, err := n.r.Read(p)
	if i := bytes.IndexByte(p[:k], 0); i >= 0 {
		n.hit = true
		return i, io.EOF
	}
	return k, err
}

// readTail returns the last (up to) tailWindow bytes before end, and the
// offset they start at.
func readTail(r io.ReaderAt, end int64) (int64, []byte, error) {
	start := max(0, end-tailWindow)
	b := make([]byte, end-start)
	if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
		return 0, nil, err
	}
	return start, b, nil
}

const blanks = " \t\r\n"

// startsLine reports whether b[i] is the first byte on its line other than
// spaces and tabs (and not the first byte of b, where that is unknown).
func startsLine(b []byte, i int) bool {
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t') {
		i--
	}
	return i > 0 && b[i-1] == '\n'
}

// hasContent reports whether bytes [from, to) of r hold something other
// than blanks and NULs: an unfinished item, not just padding.
func hasContent(r io.ReaderAt, from, to int64) bool {
	buf := make([]byte, min(to-from, tailWindow))
	for from < to {
		b := buf[:min(to-from, int64(len(buf)))]
		if _, err := r.ReadAt(b, from); err != nil && err != io.EOF {
			return true
		}
		if len(bytes.Trim(b, blanks+"\x00")) > 0 {
			return true
		}
		from += int64(len(b))
	}
	return false
}
