package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
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

// FuzzPayloadOffset: any block gives no panic, and an offset inside it
// just after an empty line (LF or CRLF), the first one after the first
// line; and where net/http reads the block as a response, its header ends
// where PayloadOffset says (the interim response's, for a 100 Continue
// recorded before the final one).
func FuzzPayloadOffset(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", "HTTP/1.1 200 OK\nA: b\n\nbody", "HTTP/1.1 200 OK\r\nA: b\r\n\nbody",
		"HTTP/1.1 200 OK\nA: b\n\r\nbody", "HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 200 OK\r\nA: b\r\n",
		"HTTP/1.1 200 OK\r\nA: b\r\n\r", "", "\n\n", "\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\nbody", "HTTP/1.0 200 OK\r\nA: b\r\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, block []byte) {
		off, ok := PayloadOffset(block)
		if ok {
			if off < 2 || off > len(block) {
				t.Fatalf("PayloadOffset(%q) = %d: outside the block", block, off)
			}
			head := block[:off]
			if !bytes.HasSuffix(head, []byte("\n\n")) && !bytes.HasSuffix(head, []byte("\n\r\n")) {
				t.Fatalf("PayloadOffset(%q) = %d: not after an empty line", block, off)
			}
			first := bytes.IndexByte(block, '\n')
			if i := bytes.Index(block[first:], []byte("\n\n")); i >= 0 && first+i+2 < off {
				t.Fatalf("PayloadOffset(%q) = %d: an empty line before it", block, off)
			}
			if i := bytes.Index(block[first:], []byte("\n\r\n")); i >= 0 && first+i+3 < off {
				t.Fatalf("PayloadOffset(%q) = %d: an empty line before it", block, off)
			}
		}
		br := bufio.NewReaderSize(bytes.NewReader(block), len(block)+16)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return
		}
		resp.Body.Close()
		// Closing a body reads nothing: what net/http took is the header.
		if end := len(block) - br.Buffered(); !ok || off != end {
			t.Fatalf("PayloadOffset(%q) = %d, %v; net/http read a header of %d bytes", block, off, ok, end)
		}
	})
}

// FuzzReadAt: every record a Reader gives, from a file gzipped record by
// record, gzipped whole, plain or damaged, ReadAt reads again from its
// Offset and Skip: the same fields and block.
func FuzzReadAt(f *testing.F) {
	var plain bytes.Buffer
	for _, u := range []string{"http://a/", "http://b/", "http://c/"} {
		response(u, "body of "+u).marshal(&plain)
	}
	f.Add(plain.Bytes(), uint8(0))
	f.Add(plain.Bytes(), uint8(1))
	f.Add(plain.Bytes(), uint8(2))
	f.Add([]byte("WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\nWARC/1.0\r\nContent-Length: 1\r\n\r\nx\r\n\r\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, how uint8) {
		var file []byte
		switch how % 3 {
		case 0: // as it is
			file = data
		case 1: // gzipped whole, as gzip crawl.warc makes it
			file = gzipped(data)
		case 2: // a gzip member for each half, then the rest as it is
			file = append(gzipped(data[:len(data)/2]), gzipped(data[len(data)/2:])...)
		}
		r := NewReader(bytes.NewReader(file), "fuzz")
		r.MaxBlock = 1 << 20
		for i := 0; ; i++ {
			if i > len(file)+10 {
				t.Fatal("no end")
			}
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				continue
			}
			again, err := ReadAt(bytes.NewReader(file), "fuzz", rec.Offset, rec.Skip)
			if err != nil {
				t.Fatalf("record %d (offset %d, skip %d): ReadAt: %v", i, rec.Offset, rec.Skip, err)
			}
			if !reflect.DeepEqual(again.Fields, rec.Fields) || !bytes.Equal(again.Block, rec.Block) {
				t.Fatalf("record %d (offset %d, skip %d): ReadAt gave another record: %q, not %q", i, rec.Offset, rec.Skip, again.Fields, rec.Fields)
			}
		}
	})
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}
