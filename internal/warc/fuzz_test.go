package warc

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// FuzzReader: any bytes are read to the end without a panic; every record
// has the block its Content-Length says; every failure is an *Error at an
// offset inside the input; and a file written by Writer reads back whole.
func FuzzReader(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.warc.gz")
	w, err := Create(path, WriterOptions{Info: []Field{{"software", "fuzz"}}, Now: func() time.Time { return t0 }})
	if err != nil {
		f.Fatal(err)
	}
	_ = w.Write(response("http://a/", "hello"))
	_ = w.Close()
	f.Add(mustRead(f, path))
	var plain bytes.Buffer
	response("http://b/", "plain").marshal(&plain)
	f.Add(plain.Bytes())
	f.Add([]byte("WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"))
	f.Add([]byte("WARC/1.0\r\nContent-Length: 99\r\n\r\nabc"))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz")
		r.MaxBlock = 1 << 20
		for i := 0; ; i++ {
			if i > len(data)+10 {
				t.Fatal("no end")
			}
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var we *Error
				if !errors.As(err, &we) || we.Offset < 0 || we.Offset > int64(len(data)) {
					t.Fatalf("error %v", err)
				}
				continue
			}
			if n, err := strconv.ParseInt(rec.Get("Content-Length"), 10, 64); err != nil || n != int64(len(rec.Block)) {
				t.Fatalf("block of %d bytes, Content-Length %q", len(rec.Block), rec.Get("Content-Length"))
			}
		}
	})
}

func mustRead(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if recs, errs := readFrom(bytes.NewReader(b), path); len(errs) > 0 || len(recs) != 2 {
		f.Fatalf("seed: %d records, errors %v", len(recs), errs)
	}
	return b
}
