package warc

import (
	"errors"
	"io"
	"os"
)

// ReadFile reads every record of the WARC file path (gzipped or not), and
// stops at the first error, which names the file and offset.
func ReadFile(path string) ([]*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := NewReader(f, path)
	var recs []*Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}

// ReadAt reads again the record a Reader read from f at offset, skip
// records into the gzip member there (Record.Offset and Record.Skip). An
// *Error names the file and the offset of the record in it.
func ReadAt(f io.ReadSeeker, name string, offset int64, skip int) (*Record, error) {
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	r := NewReader(f, name)
	for {
		rec, err := r.Next()
		if err != nil {
			var we *Error
			if errors.As(err, &we) {
				we.Offset += offset
			}
			if err == io.EOF {
				err = &Error{Name: name, Offset: offset, Err: ErrTruncated}
			}
			return nil, err
		}
		if skip == 0 {
			return rec, nil
		}
		skip--
	}
}
