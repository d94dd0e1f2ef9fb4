package cexport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// resumeJSON finds where items go on in a JSON array file.
//
// A complete array (its "]" starting the last line, as cexport and Scrapy
// write it) is found from the file's end alone: the items go on after the
// last one, and the "]" is written again after them. cexport writes each
// item as one line of compact JSON, so a "]" after a line break is never
// inside an item that a crash cut short. Any other file is read from the
// start, item by item: an array cut short is cut back to its last complete
// item (or to its "["); a file that is not a JSON array, or is invalid
// before its end, is refused.
// It reads the file's first end bytes (those before the NULs at its end).
func resumeJSON(f io.ReaderAt, end int64) (resumePoint, error) {
	open, c, err := firstNonBlank(f, end)
	switch {
	case err != nil:
		return resumePoint{}, err
	case open < 0:
		return resumePoint{}, nil // blanks only: a new export
	case c != '[':
		return resumePoint{}, cannotAppend("not a JSON array (it starts with %q)", c)
	}
	base, tail, err := readTail(f, end)
	if err != nil {
		return resumePoint{}, err
	}
	if rp, ok := jsonClosedAtEnd(base, tail, open); ok {
		return rp, nil
	}
	return scanJSONArray(&nulStop{r: io.NewSectionReader(f, 0, end)})
}

// jsonClosedAtEnd recognizes a complete array from its last bytes (tail,
// starting at offset base; the array opens at offset open). A NUL among
// them (see nulStop) leaves it to the scan.
func jsonClosedAtEnd(base int64, tail []byte, open int64) (resumePoint, bool) {
	t := bytes.TrimRight(tail, blanks)
	i := len(t) - 1
	if i < 0 || t[i] != ']' || !startsLine(t, i) || bytes.IndexByte(t, 0) >= 0 {
		return resumePoint{}, false
	}
	body := bytes.TrimRight(t[:i], blanks)
	if len(body) == 0 {
		return resumePoint{}, false // too far back: read it all
	}
	keep := base + int64(len(body))
	switch body[len(body)-1] {
	case ',':
		return resumePoint{}, false // invalid: the scan says where
	case '[':
		if keep-1 != open {
			return resumePoint{}, false
		}
		return resumePoint{keep: keep, closed: true, opened: true}, true
	}
	return resumePoint{keep: keep, closed: true, opened: true, items: true}, true
}

// scanJSONArray reads a JSON array item by item, up to a NUL.
func scanJSONArray(r *nulStop) (resumePoint, error) {
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil { // "[", checked by the caller
		return resumePoint{}, err
	}
	rp := resumePoint{keep: dec.InputOffset(), opened: true}
	var item json.RawMessage
	for dec.More() {
		if err := dec.Decode(&item); err != nil {
			return rp, cutShort(err)
		}
		rp.keep, rp.items = dec.InputOffset(), true
	}
	if _, err := dec.Token(); err != nil { // "]"
		return rp, cutShort(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return rp, cannotAppend("more after the end of the JSON array, at byte %d", dec.InputOffset())
	}
	rp.closed = !r.hit // else the closing goes with what follows it
	return rp, nil
}

// cutShort returns nil for an error that says the input ended early (the
// tail a crash cut short, cut off) and refuses any other.
func cutShort(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return cannotAppend("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return err
}

// firstNonBlank returns the offset and value of the first byte before end
// that is not a blank, or -1.
func firstNonBlank(r io.ReaderAt, end int64) (int64, byte, error) {
	buf := make([]byte, min(end, tailWindow))
	for start := int64(0); start < end; {
		b := buf[:min(end-start, int64(len(buf)))]
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return -1, 0, err
		}
		for i, c := range b {
			if bytes.IndexByte([]byte(blanks), c) < 0 {
				return start + int64(i), c, nil
			}
		}
		start += int64(len(b))
	}
	return -1, 0, nil
}
