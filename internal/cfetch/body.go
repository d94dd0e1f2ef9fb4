package cfetch

import (
	"bufio"
	"context"
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
	buf       []byte // the buffer data is in, from bufferPool or not

	// res holds held bytes for buf (or data) in the memory budget.
	res  *reservation
	held int64
}

// release returns the body's buffer to the pool and its bytes to the
// budget; data is invalid after it.
func (b *body) release() {
	if b.buf != nil {
		putBuffer(b.buf)
		b.buf = nil
	}
	b.data = nil
	b.res.shrink(b.held)
	b.held = 0
}

// errMemoryWait is the error of a body read that ended while it waited
// for memory (--max-memory), when its --timeout was reached.
var errMemoryWait = errors.New("waited for memory (--max-memory) until the time limit")

// readBody reads resp.Body through the size limit and decodes its content
// codings, holding in res the memory the body takes as it grows (ctx ends
// a wait for it). It does not close the body.
func readBody(ctx context.Context, resp *http.Response, o *Options, res *reservation) (*body, *FetchError) {
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
	if len(codings) > maxCodings {
		// A decoder per coding: 9,000 of them took 283 MB for one page.
		return nil, fetchErr(ErrDecode, "more than %d content codings stacked (Content-Encoding): refused, as curl refuses them", maxCodings)
	}
	b := &body{res: res}
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
					return nil, decodeFailure(codings[i], err, wire, closeDelimited(resp))
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
	size := int64(-1) // the size to read, when Content-Length says it
	if len(codings) == 0 && !head && resp.ContentLength >= 0 {
		size = resp.ContentLength
	}
	if err := b.readFrom(ctx, r, size, limit); err != nil {
		b.release()
		if err == errMemoryWait {
			return nil, fetchErr(ErrTimeout, "%v", err)
		}
		if wire.err != nil || len(codings) == 0 || b.encoded {
			if errors.Is(wire.err, errWireTooLarge) {
				return nil, fetchErr(ErrTooLarge, "body is over --max-size %s", formatSize(o.MaxSize))
			}
			return nil, classify(cmpErr(wire.err, err), phaseBody)
		}
		return nil, decodeFailure(strings.Join(codings, ", "), err, wire, closeDelimited(resp))
	}
	if limit > 0 && int64(len(b.buf)) >= limit && o.keepHead {
		b.buf = b.buf[:o.MaxSize]
		b.truncated = true
	} else if limit > 0 && int64(len(b.buf)) >= limit {
		b.release()
		what := "body"
		if len(codings) > 0 {
			what = "decoded body"
		}
		return nil, fetchErr(ErrTooLarge, "%s is over --max-size %s", what, formatSize(o.MaxSize))
	}
	if len(releases) > 0 && !b.truncated {
		// A decoder can end with its stream (zlib's "deflate") before the
		// message ends (its last chunk): the message is read to its end,
		// a little more at most, so that it is whole (in a WARC record)
		// and its connection can be used again.
		_, _ = io.CopyN(io.Discard, wire, 4<<10)
	}
	b.data = b.buf
	b.wire = wire.n
	if o.WarnSize > 0 && max(int64(len(b.data)), b.wire) > o.WarnSize {
		b.warnings = append(b.warnings, fmt.Sprintf("body of %d bytes is over --warn-size %s", max(int64(len(b.data)), b.wire), formatSize(o.WarnSize)))
	}
	return b, nil
}

// Growth of a body's buffer.
const (
	firstChunk = 32 << 10
	// maxPrealloc bounds the buffer allocated at once for a Content-Length,
	// so that a lying one cannot make us allocate much more than the body.
	maxPrealloc = 64 << 20
)

// readFrom reads r to its end into b.buf (limit bytes at most, when
// positive; size is the length announced, -1 if unknown), reserving each
// growth of the buffer in b.res before it is made: the whole announced
// length at once, else half again what is there.
func (b *body) readFrom(ctx context.Context, r io.Reader, size, limit int64) error {
	b.buf = getBuffer()
	b.held = 0
	if err := b.res.grow(ctx, int64(cap(b.buf))); err != nil {
		putBuffer(b.buf)
		b.buf = nil
		return errMemoryWait
	}
	b.held = int64(cap(b.buf))
	for {
		if len(b.buf) == cap(b.buf) {
			c := int64(cap(b.buf))
			next := c + max(firstChunk, c/2)
			if size >= 0 && c <= size {
				// +1: the end is seen without growing.
				next = max(next, min(size+1, maxPrealloc))
			}
			if limit > 0 {
				next = max(min(next, limit), c+1)
			}
			// The old buffer is held until it is copied: the new one is
			// reserved whole, and the old one given back after.
			if err := b.res.grow(ctx, next); err != nil {
				return errMemoryWait
			}
			b.held += next
			nb := make([]byte, len(b.buf), next)
			copy(nb, b.buf)
			putBuffer(b.buf)
			b.buf = nb
			b.res.shrink(c)
			b.held -= c
		}
		n, err := r.Read(b.buf[len(b.buf):cap(b.buf)])
		b.buf = b.buf[:len(b.buf)+n]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// decodeFailure reports an error from a decompressor: a transport error
// that surfaced through it is classified as such, compressed data cut
// short in a body that only the connection's close ends (closeDelimited)
// is a body cut short, anything else is broken compressed data.
func decodeFailure(coding string, err error, wire *wireReader, closeDelimited bool) *FetchError {
	if wire.err != nil {
		if errors.Is(wire.err, errWireTooLarge) {
			return fetchErr(ErrTooLarge, "body is over --max-size %s", formatSize(wire.max))
		}
		return classify(wire.err, phaseBody)
	}
	if closeDelimited && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) {
		// Nothing says where such a body ends but its close: the
		// connection closed in the middle of the compressed data, as it
		// does when it is cut, and the next attempt may get it whole.
		return fetchErr(ErrTruncated, "body ended early: the connection closed in the middle of its %s data (the response had no Content-Length)", coding)
	}
	return fetchErr(ErrDecode, "invalid %s data: %v", coding, err)
}

// closeDelimited reports whether resp's body is ended by the connection's
// close alone (HTTP/1, neither Content-Length nor chunked).
func closeDelimited(resp *http.Response) bool {
	return resp.ProtoMajor == 1 && resp.ContentLength < 0 && len(resp.TransferEncoding) == 0
}

// maxCodings is how many stacked content codings are decoded, as curl
// (CVE-2022-32206): more is an attack, not a server's choice.
const maxCodings = 5

// contentCodings lists the response's content codings in the order they
// were applied, without "identity"; it stops after maxCodings+1.
func contentCodings(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				out = append(out, c)
				if len(out) > maxCodings {
					return out
				}
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
		zr, _ := gzipPool.Get().(*gzipReader)
		if zr == nil {
			zr = new(gzipReader)
		}
		if err := zr.reset(r); err != nil {
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

// gzipReader decodes a gzip body member by member (RFC 1952: members
// may be concatenated), and ends it at the end of a member that is
// followed by anything but another one: servers pad a body with zeros or
// write a stray newline after it, and browsers (Chrome's
// GzipSourceStream, Firefox) and Scrapy ignore those bytes, where a
// multistream gzip.Reader takes them for a broken header.
type gzipReader struct {
	zr gzip.Reader
	br *bufio.Reader // the body, so that what follows a member can be peeked at
}

// reset starts reading the first member of r.
func (g *gzipReader) reset(r io.Reader) error {
	if g.br == nil {
		g.br = bufio.NewReader(r)
	} else {
		g.br.Reset(r)
	}
	return g.member()
}

// member reads the header of the member g.br is at.
func (g *gzipReader) member() error {
	if err := g.zr.Reset(g.br); err != nil {
		return err
	}
	g.zr.Multistream(false)
	return nil
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	for err == io.EOF { // a member ended, its checksum right
		next, perr := g.br.Peek(2)
		if perr != nil && perr != io.EOF {
			return n, perr // the connection failed: not the end
		}
		if len(next) < 2 || next[0] != 0x1f || next[1] != 0x8b {
			return n, io.EOF // the end, or bytes after it that are no member
		}
		if err = g.member(); err != nil {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
		n, err = g.zr.Read(p)
	}
	return n, err
}

// zstdMaxWindow bounds the memory a zstd frame can make us allocate.
const zstdMaxWindow = 64 << 20

var (
	gzipPool   sync.Pool
	brotliPool sync.Pool
	zstdPool   sync.Pool
	bufferPool sync.Pool // *[]byte
)

// maxPooledBuffer: larger buffers are left to the garbage collector so one
// huge page does not pin its memory for the rest of the run.
const maxPooledBuffer = 4 << 20

// getBuffer returns an empty buffer, from the pool when it has one.
func getBuffer() []byte {
	if p, _ := bufferPool.Get().(*[]byte); p != nil {
		return (*p)[:0]
	}
	return nil
}

func putBuffer(b []byte) {
	if cap(b) > 0 && cap(b) <= maxPooledBuffer {
		b = b[:0]
		bufferPool.Put(&b)
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
