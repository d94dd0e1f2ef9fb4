package cfetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// brokenReader yields data, then fails with err.
type brokenReader struct {
	data []byte
	err  error
}

func (r *brokenReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func fakeResponse(coding string, body io.Reader, contentLength int64) *http.Response {
	h := http.Header{}
	if coding != "" {
		h.Set("Content-Encoding", coding)
	}
	return &http.Response{Header: h, Body: io.NopCloser(body), ContentLength: contentLength}
}

func TestReadBody(t *testing.T) {
	page := []byte(strings.Repeat("<p>hello, body</p>", 100))
	gz := compress("gzip", page)
	opts := DefaultOptions()
	opts.MaxSize, opts.WarnSize = 1<<20, 1<<10
	tests := []struct {
		name    string
		coding  string
		body    io.Reader
		cl      int64
		want    []byte
		wantErr string
		encoded bool
		warn    string
	}{
		{"identity", "", bytes.NewReader(page), -1, page, "", false, "body of 1800 bytes is over --warn-size 1KiB"},
		{"gzip", "gzip", bytes.NewReader(gz), -1, page, "", false, "body of 1800 bytes is over --warn-size 1KiB"},
		{"x-gzip, upper case", "X-GZIP", bytes.NewReader(gz), -1, page, "", false, "body of 1800 bytes is over --warn-size 1KiB"},
		{"br", "br", bytes.NewReader(compress("br", []byte("abc"))), -1, []byte("abc"), "", false, ""},
		{"zstd", "zstd", bytes.NewReader(compress("zstd", []byte("abc"))), -1, []byte("abc"), "", false, ""},
		{"deflate (zlib)", "deflate", bytes.NewReader(compress("deflate", []byte("abc"))), -1, []byte("abc"), "", false, ""},
		{"deflate (raw)", "deflate", bytes.NewReader(compress("rawdeflate", []byte("abc"))), -1, []byte("abc"), "", false, ""},
		{"five codings stacked", "gzip, gzip, gzip, gzip, gzip", bytes.NewReader(compress("gzip", compress("gzip", compress("gzip", compress("gzip", compress("gzip", []byte("five"))))))), -1, []byte("five"), "", false, ""},
		{"six codings stacked: refused", "gzip, gzip, gzip, gzip, gzip, gzip", strings.NewReader("x"), -1, nil, ErrDecode, false, ""},
		{"gzip then br", "gzip, br", bytes.NewReader(compress("br", compress("gzip", []byte("two layers")))), -1, []byte("two layers"), "", false, ""},
		{"identity is no coding", "identity", strings.NewReader("abc"), -1, []byte("abc"), "", false, ""},
		{"empty gzip body", "gzip", strings.NewReader(""), 0, []byte{}, "", false, ""},
		{"empty br body", "br", strings.NewReader(""), 0, []byte{}, "", false, ""},
		{"unknown coding", "compress", strings.NewReader("\x1f\x9dabc"), -1, []byte("\x1f\x9dabc"), "", true, `unknown Content-Encoding "compress": body left encoded`},
		{"invalid gzip", "gzip", strings.NewReader("not gzip"), -1, nil, ErrDecode, false, ""},
		{"truncated gzip stream", "gzip", bytes.NewReader(gz[:len(gz)/2]), -1, nil, ErrDecode, false, ""},
		// Browsers (Chrome's GzipSourceStream, Firefox) and Scrapy ignore
		// what follows a complete gzip member when it is not another one:
		// servers pad with zeros, or write a stray newline after it.
		{"gzip then zero padding", "gzip", bytes.NewReader(append(compress("gzip", []byte("abc")), 0, 0, 0, 0)), -1, []byte("abc"), "", false, ""},
		{"gzip then a stray newline", "gzip", bytes.NewReader(append(compress("gzip", []byte("abc")), "\r\n"...)), -1, []byte("abc"), "", false, ""},
		{"gzip then garbage longer than a header", "gzip", bytes.NewReader(append(compress("gzip", []byte("abc")), "<!-- served in 3 ms -->\n"...)), -1, []byte("abc"), "", false, ""},
		{"two gzip members", "gzip", bytes.NewReader(append(compress("gzip", []byte("ab")), compress("gzip", []byte("c"))...)), -1, []byte("abc"), "", false, ""},
		{"two gzip members then padding", "gzip", bytes.NewReader(append(append(compress("gzip", []byte("ab")), compress("gzip", []byte("c"))...), 0, 0)), -1, []byte("abc"), "", false, ""},
		{"gzip then a broken second member", "gzip", bytes.NewReader(append(compress("gzip", []byte("ab")), compress("gzip", []byte("cdefgh"))[:12]...)), -1, nil, ErrDecode, false, ""},
		{"gzip then garbage, under br", "gzip, br", bytes.NewReader(compress("br", append(compress("gzip", []byte("abc")), 0))), -1, []byte("abc"), "", false, ""},
		{"invalid br", "br", strings.NewReader("not brotli at all, no"), -1, nil, ErrDecode, false, ""},
		{"invalid zstd", "zstd", strings.NewReader("not zstd"), -1, nil, ErrDecode, false, ""},
		{"connection cut inside gzip", "gzip", &brokenReader{gz[:len(gz)/2], io.ErrUnexpectedEOF}, -1, nil, ErrTruncated, false, ""},
		{"reset inside br", "br", &brokenReader{compress("br", page)[:10], syscall.ECONNRESET}, -1, nil, ErrReset, false, ""},
		{"connection cut, identity", "", &brokenReader{page[:10], io.ErrUnexpectedEOF}, -1, nil, ErrTruncated, false, ""},
		{"Content-Length over the limit", "", strings.NewReader("x"), 2 << 20, nil, ErrTooLarge, false, ""},
		{"wire over the limit", "", bytes.NewReader(make([]byte, 1<<20+1)), -1, nil, ErrTooLarge, false, ""},
		{"exactly the limit", "", bytes.NewReader(make([]byte, 1<<20)), -1, make([]byte, 1<<20), "", false, "body of 1048576 bytes is over --warn-size 1KiB"},
		{"gzip bomb", "gzip", bytes.NewReader(compress("gzip", make([]byte, 8<<20))), -1, nil, ErrTooLarge, false, ""},
		{"zstd bomb", "zstd", bytes.NewReader(compress("zstd", make([]byte, 8<<20))), -1, nil, ErrTooLarge, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, fe := readBody(context.Background(), fakeResponse(tt.coding, tt.body, tt.cl), &opts, nil)
			if tt.wantErr != "" {
				if fe == nil || fe.Code != tt.wantErr {
					t.Fatalf("error %v, want %s", fe, tt.wantErr)
				}
				return
			}
			if fe != nil {
				t.Fatalf("error %v", fe)
			}
			defer b.release()
			if !bytes.Equal(b.data, tt.want) || b.encoded != tt.encoded {
				t.Errorf("data %q encoded %v, want %q %v", b.data, b.encoded, tt.want, tt.encoded)
			}
			if w := strings.Join(b.warnings, "; "); w != tt.warn {
				t.Errorf("warnings %q, want %q", w, tt.warn)
			}
		})
	}
}

// FuzzReadBody: hostile compressed data never panics, never yields more
// than --max-size, and fails only with documented codes.
func FuzzReadBody(f *testing.F) {
	for _, kind := range []string{"gzip", "br", "zstd", "deflate", "rawdeflate"} {
		f.Add(compress(kind, []byte("hello hello hello")), uint8(len(kind)))
	}
	f.Add([]byte("\x1f\x8b\x08\x00garbage"), uint8(0))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff}, uint8(1))
	codings := []string{"gzip", "br", "zstd", "deflate", "", "gzip, deflate", "br, zstd"}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		opts := DefaultOptions()
		opts.MaxSize = 64 << 10
		coding := codings[int(which)%len(codings)]
		b, fe := readBody(context.Background(), fakeResponse(coding, bytes.NewReader(data), -1), &opts, nil)
		if fe != nil {
			if fe.Code != ErrDecode && fe.Code != ErrTooLarge {
				t.Fatalf("%s: unexpected %v", coding, fe)
			}
			return
		}
		defer b.release()
		if int64(len(b.data)) > opts.MaxSize {
			t.Fatalf("%d bytes through a %d limit", len(b.data), opts.MaxSize)
		}
	})
}

// TestReadBodyHEAD: a HEAD response announces the size of a body it does
// not have; that is not too large.
func TestReadBodyHEAD(t *testing.T) {
	opts := DefaultOptions()
	resp := fakeResponse("gzip", strings.NewReader(""), 1<<40)
	resp.Request = &http.Request{Method: http.MethodHead}
	b, fe := readBody(context.Background(), resp, &opts, nil)
	if fe != nil || len(b.data) != 0 {
		t.Fatalf("HEAD: %v %q", fe, b.data)
	}
}

func TestWireReaderKeepsTheTransportError(t *testing.T) {
	w := &wireReader{r: &brokenReader{[]byte("abc"), syscall.ECONNRESET}}
	got, err := io.ReadAll(w)
	if string(got) != "abc" || !errors.Is(err, syscall.ECONNRESET) || !errors.Is(w.err, syscall.ECONNRESET) || w.n != 3 {
		t.Fatalf("got %q %v, w.err %v n %d", got, err, w.err, w.n)
	}
}
