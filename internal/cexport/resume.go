package cexport

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
)

// cutUnfinished truncates f (of size bytes) after its last complete record
// and returns the new size. A record cut short by a crash mid-write was
// never acknowledged (acks pass on only after the records before them are
// fsynced), so its page is fetched again and the record rewritten: keeping
// the broken tail would only garble the record written after it.
//
// For JSON lines a record ends at a newline. For CSV a newline can be
// inside a quoted field, so the file is parsed: the tail after the last
// record that parses and ends with a newline is cut.
func cutUnfinished(f *os.File, size int64, format string, delim rune) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return size, err
	}
	keep := int64(bytes.LastIndexByte(data, '\n') + 1)
	if format == formatCSV {
		keep = csvComplete(data, delim)
	}
	if keep == size {
		return size, nil
	}
	if err := f.Truncate(keep); err != nil {
		return size, fmt.Errorf("cut the unfinished last record: %w", err)
	}
	return keep, nil
}

// csvComplete returns the length of the prefix of data made of whole CSV
// records, each ending with a newline.
func csvComplete(data []byte, delim rune) int64 {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = delim
	r.FieldsPerRecord = -1
	var good int64
	for {
		_, err := r.Read()
		if err != nil {
			var pe *csv.ParseError
			if err == io.EOF || errors.As(err, &pe) {
				return good
			}
			return good
		}
		end := r.InputOffset()
		if end > 0 && data[end-1] == '\n' {
			good = end
		}
	}
}
