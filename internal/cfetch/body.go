package cfetch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// errWireTooLarge is returned by wireReader past the size limit.
var errWireTooLarge = errors.New("body too large")

// wireReader reads a response body as it comes off the connection: it
// counts the bytes, stops past max (0: no limit), and remembers the first
// transport error, so that an error surfacing through a decompressor can be
// told apart from broken compressed data.
type wireReader struct {
	r   io.Reader
	max int64
	n   int64
	err error
}

func (w *wireReader) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.max > 0 {
		if w.n > w.max {
			w.err = errWireTooLarge
			return 0, w.err
		}
		if room := w.max + 1 - w.n; int64(len(p)) > room {
			p = p[:room]
		}
	}
	n, err := w.r.Read(p)
	w.n += int64(n)
	if err != nil && err != io.EOF {
		w.err = err
	}
	return n, err
}

// body is a response body read and decompressed.
type body struct {
	data      []byte // valid until release
	wire      int64  // bytes read from the connection
	encoded   bool   // data is still in an unknown content coding
	truncated bool   // cut at MaxSize (Options.keepHead)
	warnings  []string
	buf       *bytes.Buffer
}

// release returns the body's buffer to the pool; data is invalid after it.
func (b *body) release() {
	if b.buf != nil {
		putBuffer(b.buf)
		b.buf = nil
		b.data = nil
	}
}

// readBody reads resp.Body through the size limit and decodes its content
// codings. It does not close the body.
func readBody(resp *http.Response, o *Options) (*body, *FetchError) {
	head := resp.Request != nil && resp.Request.Method == http.MethodHead
	if o.MaxSize > 0 && resp.ContentLength > o.MaxSize && !head && !o.keepHead {
		return nil, fetchErr(ErrTooLarge, "Content-Length %d is over --max-size %s", resp.ContentLength, formatSize(o.MaxSize))
	}
	wire := &wireReader{r: resp.Body, max: o.MaxSize}
	if o.keepHead {
		// The decoded body is cut at MaxSize below; the wire needs no
		// limit of its own (reading stops there), but a compressed body
		// that decodes to little must still end: the wire then gets
		// twice MaxSize.
		wire.max = 2 * o.MaxSize
	}
	codings := contentCodings(resp.Header)
	b := &body{buf: getBuffer()}
	var r io.Reader = wire
	var releases []func()
	defer func() {
		for _, rel := range releases {
			rel()
		}
	}()
	if len(codings) > 0 {
		// Codings are listed in the order they were applied: undo the last first.
		peek := &peekReader{r: wire}
		if !peek.empty() {
			r = peek
			for i := len(codings) - 1; i >= 0 && !b.encoded; i-- {
				dec, rel, err := newDecoder(codings[i], r)
				switch {
				case err == errUnknownCoding:
					b.warnings = append(b.warnings, fmt.Sprintf("unknown Content-Encoding %q: body left encoded", codings[i]))
					b.encoded = true
				case err != nil:
					b.release()
					return nil, decodeFailure(codings[i], err, wire)
				default:
					r = dec
					releases = append(releases, rel)
				}
			}
		}
	}
	limit := int64(-1)
	if o.MaxSize > 0 {
		limit = o.MaxSize + 1
		r = io.LimitReader(r, limit)
	}
	if _, err := b.buf.ReadFrom(r); err != nil {
		b.release()
		if wire.err != nil || len(codings) == 0 || b.encoded {
			if errors.Is(wire.err, errWireTooLarge) {
				return nil, fetchErr(ErrTooLarge, "body is over --max-size %s", formatSize(o.MaxSize))
			}
			return nil, classify(cmpErr(wire.err, err), phaseBody)
		}
		return nil, decodeFailure(strings.Join(codings, ", "), err, wire)
	}
	if limit > 0 && int64(b.buf.Len()) >= limit && o.keepHead {
		b.buf.Truncate(int(o.MaxSize))
		b.truncated = true
	} else if limit > 0 && int64(b.buf.Len()) >= limit {
		b.release()
		what := "body"
		if len(codings) > 0 {
			what = "decoded body"
		}
		return nil, fetchErr(ErrTooLarge, "%s is over --max-size %s", what, formatSize(o.MaxSize))
	}
	b.data = b.buf.Bytes()
	b.wire = wire.n
	if o.WarnSize > 0 && max(int64(len(b.data)), b.wire) > o.WarnSize {
		b.warnings = append(b.warnings, fmt.Sprintf("body of %d bytes is over --warn-size %s", max(int64(len(b.data)), b.wire), formatSize(o.WarnSize)))
	}
	return b, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// decodeFailure reports an error from a decompressor: a transport error
// that surfaced through it is classified as such, anything else is broken
// compressed data.
func decodeFailure(coding string, err error, wire *wireReader) *FetchError {
	if wire.err != nil {
		if errors.Is(wire.err, errWireTooLarge) {
			return fetchErr(ErrTooLarge, "body is over --max-size %s", formatSize(wire.max))
		}
		return classify(wire.err, phaseBody)
	}
	return fetchErr(ErrDecode, "invalid %s data: %v", coding, err)
}

// contentCodings lists the response's content codings in the order they
// were applied, without "identity".
func contentCodings(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				out = append(out, c)
			}
		}
	}
	return out
}

var errUnknownCoding = errors.New("unknown content coding")

// newDecoder returns a reader that undoes coding, and a function that
// returns the decoder to its pool.
func newDecoder(coding string, r io.Reader) (io.Reader, func(), error) {
	switch coding {
	case "gzip", "x-gzip":
		zr, _ := gzipPool.Get().(*gzip.Reader)
		if zr == nil {
			zr = new(gzip.Reader)
		}
		if err := zr.Reset(r); err != nil {
			gzipPool.Put(zr)
			return nil, nil, err
		}
		return zr, func() { gzipPool.Put(zr) }, nil
	case "br":
		br, _ := brotliPool.Get().(*brotli.Reader)
		if br == nil {
			br = brotli.NewReader(r)
		} else if err := br.Reset(r); err != nil {
			return nil, nil, err
		}
		return br, func() { brotliPool.Put(br) }, nil
	case "zstd":
		zd, _ := zstdPool.Get().(*zstd.Decoder)
		if zd == nil {
			var err error
			zd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(zstdMaxWindow))
			if err != nil {
				return nil, nil, err
			}
		}
		if err := zd.Reset(r); err != nil {
			zstdPool.Put(zd)
			return nil, nil, err
		}
		return zd, func() { zd.Reset(nil); zstdPool.Put(zd) }, nil
	case "deflate":
		// "deflate" is zlib-wrapped by the spec, raw DEFLATE by some servers.
		pr := &peekReader{r: r}
		if pr.zlibHeader() {
			zr, err := zlib.NewReader(pr)
			if err != nil {
				return nil, nil, err
			}
			return zr, func() { zr.Close() }, nil
		}
		fr := flate.NewReader(pr)
		return fr, func() { fr.Close() }, nil
	}
	return nil, nil, errUnknownCoding
}

// zstdMaxWindow bounds the memory a zstd frame can make us allocate.
const zstdMaxWindow = 64 << 20

var (
	gzipPool   sync.Pool
	brotliPool sync.Pool
	zstdPool   sync.Pool
	bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// maxPooledBuffer: larger buffers are left to the garbage collector so one
// huge page does not pin its memory for the rest of the run.
const maxPooledBuffer = 4 << 20

func getBuffer() *bytes.Buffer {
	b := bufferPool.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuffer {
		bufferPool.Put(b)
	}
}

// peekReader looks at the first two bytes of a stream without losing them.
type peekReader struct {
	r    io.Reader
	head [2]byte
	n, i int
	err  error
	done bool
}

func (p *peekReader) fill() {
	if !p.done {
		p.done = true
		p.n, p.err = io.ReadFull(p.r, p.head[:])
		if p.err == io.ErrUnexpectedEOF {
			p.err = io.EOF
		}
	}
}

// empty reports whether the stream has no bytes at all.
func (p *peekReader) empty() bool {
	p.fill()
	return p.n == 0 && p.err == io.EOF
}

// zlibHeader reports whether the stream starts with a zlib header (RFC 1950).
func (p *peekReader) zlibHeader() bool {
	p.fill()
	return p.n == 2 && p.head[0]&0x0f == 8 && p.head[0]>>4 <= 7 && (uint16(p.head[0])<<8|uint16(p.head[1]))%31 == 0
}

func (p *peekReader) Read(b []byte) (int, error) {
	p.fill()
	if p.i < p.n {
		c := copy(b, p.head[p.i:p.n])
		p.i += c
		return c, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	return p.r.Read(b)
}
