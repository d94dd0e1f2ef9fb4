package cexport

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Appending to a compressed export (-o items.jsonl.gz). The file is read
// member by member (zstd: frame by frame): the complete ones stay; of a
// member a killed run left torn after them, the whole records that decode
// are kept as a complete member (resume_salvage.go) and the rest is cut
// off, as are the zeros a crash can leave; new members go after them. The complete
// members' data must end with a line break (cexport ends a member only
// after whole items); a file that does not, or that is damaged before its
// end (a member that does not decode, followed by one that does), or is
// not in the compression its suffix names, is refused and left as it is.
//
// A compressed JSON array or XML document is not appended to: its closing
// ("]", "</items>") is inside the last member, and taking it off would mean
// rewriting that member, which cexport does not do in place. -o on such a
// file that has data is refused; a missing or empty one is a new export.

// openCompressed opens the -o or -O file of a compressed export.
func openCompressed(o *Options, warn func(format string, a ...any)) (*output, error) {
	path := o.Output
	flags := os.O_RDWR | os.O_CREATE | os.O_APPEND
	if o.Overwrite {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	} else if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		flags = os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o666)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	out := &output{name: path, file: f, regular: st.Mode().IsRegular()}
	if out.regular && !o.Overwrite && st.Size() > 0 {
		if err := out.resumeCompressed(o, st.Size(), warn); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	out.comp = newCompressWriter(o.compress, f)
	out.w = namedWriter{path, out.comp}
	return out, nil
}

// resumeCompressed finds the end of the file's complete members, cuts off
// what follows, and sets where the export goes on.
func (out *output) resumeCompressed(o *Options, size int64, warn func(format string, a ...any)) error {
	if o.isDocument() {
		what := map[string]string{formatJSON: "a compressed JSON array (its closing ]", formatXML: "a compressed XML document (its end tag"}[o.format]
		return fmt.Errorf("-o cannot append to %s is inside the compressed data); start a new export with -O, or export JSON lines or CSV (.jsonl.gz, .csv.gz), which -o appends to", what)
	}
	size, err := finishSalvage(out.file, out.name, size)
	if err != nil {
		return fmt.Errorf("finish salvaging an unfinished member: %w", unwrapPath(err))
	}
	var c content
	var keep int64
	if o.compress == compressZstd {
		keep, err = scanZstd(out.file, size, &c)
	} else {
		keep, err = scanGzip(out.file, size, &c)
	}
	if err != nil {
		return err
	}
	if c.n > 0 && c.last != '\n' {
		return cannotAppend("its data does not end with a line break")
	}
	if keep < size && hasContent(out.file, keep, size) {
		whole, newSize, err := salvage(out.file, out.name, keep, size, o)
		if err != nil {
			return err
		}
		if len(whole) > 0 {
			c.Write(whole)
			c.commit()
			warn("%s: kept the %d bytes of whole records of an unfinished %s at its end, left by a run that was stopped mid-write; cut off the rest", out.name, len(whole), memberName(o.compress))
			keep, size = newSize, newSize
		}
	}
	if c.n == 0 {
		keep = 0 // no data: a new export
	}
	if keep < size {
		unfinished := hasContent(out.file, keep, size)
		if err := out.file.Truncate(keep); err != nil {
			return fmt.Errorf("cut off the unfinished last member: %w", unwrapPath(err))
		}
		if unfinished {
			warn("%s: cut off an unfinished %s at its end (%d bytes), left by a run that was stopped mid-write", out.name, memberName(o.compress), size-keep)
		}
	}
	rp := resumePoint{keep: keep, items: c.n > 0}
	if o.format == formatCSV && c.n > 0 {
		head := ndjson.TrimBOM(c.head)
		r := csv.NewReader(bytes.NewReader(head))
		r.Comma = o.delimiter
		r.FieldsPerRecord = -1
		if h, err := r.Read(); err == nil {
			rp.header = h
			// a record after the header (or past the head read)
			rp.items = int64(len(c.head)-len(head))+r.InputOffset() < c.n
		}
	}
	out.resumed = rp
	return nil
}

func memberName(kind string) string {
	if kind == compressZstd {
		return "zstd frame"
	}
	return "gzip member"
}

// content gathers what resuming needs of the decompressed data: its
// length, last byte and first bytes (for a CSV header). Data written to it
// is pending until commit (a member that turns out torn is dropped).
type content struct {
	n, pendingN    int64
	last, pendLast byte
	head, pendHead []byte
}

const maxHead = 1 << 20

func (c *content) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if c.n+c.pendingN < maxHead {
		c.pendHead = append(c.pendHead, p[:min(int64(len(p)), maxHead-c.n-c.pendingN)]...)
	}
	c.pendingN += int64(len(p))
	c.pendLast = p[len(p)-1]
	return len(p), nil
}

func (c *content) commit() {
	if c.pendingN > 0 {
		c.n += c.pendingN
		c.last = c.pendLast
		c.head = append(c.head, c.pendHead...)
	}
	c.rollback()
}

func (c *content) rollback() { c.pendingN, c.pendHead = 0, c.pendHead[:0] }

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// scanGzip decodes the gzip members of f (size bytes) into c and returns
// where the last complete one ends. A bufio.Reader is an io.ByteReader, so
// the decoder reads no further than each member's end.
func scanGzip(f io.ReaderAt, size int64, c *content) (int64, error) {
	cr := &countReader{r: io.NewSectionReader(f, 0, size)}
	br := bufio.NewReaderSize(cr, 64<<10)
	pos := func() int64 { return cr.n - int64(br.Buffered()) }
	var zr gzip.Reader
	for {
		start := pos()
		if start >= size {
			return start, nil
		}
		if err := gzipStart(f, start, size); err != nil {
			return 0, err
		}
		err := zr.Reset(br)
		if err == nil {
			zr.Multistream(false)
			_, err = io.Copy(c, &zr)
		}
		if err == nil {
			c.commit()
			continue
		}
		c.rollback()
		if decodesLater(f, start+1, size, gzipMagic, oneGzipMember) {
			return 0, cannotAppend("damaged gzip data at byte %d (%v), before complete members", start, err)
		}
		return start, nil // torn: cut off
	}
}

// gzipStart checks that a member, or what a crash leaves (part of one, or
// zeros), starts at start.
func gzipStart(f io.ReaderAt, start, size int64) error {
	b := make([]byte, min(int64(len(gzipMagic)), size-start))
	if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
		return err
	}
	if bytes.HasPrefix(gzipMagic, b) || allZero(f, start, size) {
		return nil
	}
	if start == 0 {
		return cannotAppend("not gzip data")
	}
	return cannotAppend("not gzip data at byte %d, after complete gzip members", start)
}

// scanZstd finds the zstd frames of f (size bytes) from their headers and
// block sizes, then decodes the complete ones into c; it returns where the
// last complete one ends.
func scanZstd(f io.ReaderAt, size int64, c *content) (int64, error) {
	var keep int64
	for keep < size {
		end, err := zstdFrameEnd(f, keep, size)
		if err != nil {
			if keep == 0 && !allZero(f, 0, size) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, cannotAppend("not zstd data (%v)", err)
			}
			if decodesLater(f, keep+1, size, zstdMagic, oneZstdFrame) {
				return 0, cannotAppend("damaged zstd data at byte %d (%v), before complete frames", keep, err)
			}
			break // torn: cut off
		}
		keep = end
	}
	dec, err := zstd.NewReader(io.NewSectionReader(f, 0, keep), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return 0, err
	}
	defer dec.Close()
	if _, err := io.Copy(c, dec); err != nil {
		return 0, cannotAppend("damaged zstd data: %v", err)
	}
	c.commit()
	return keep, nil
}

var (
	gzipMagic = []byte{0x1f, 0x8b, 8}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// zstdFrameEnd returns where the zstd frame (or skippable frame) at start
// ends, reading only its header and block headers (RFC 8878). A frame that
// runs past size is io.ErrUnexpectedEOF.
func zstdFrameEnd(f io.ReaderAt, start, size int64) (int64, error) {
	var b [14]byte
	read := func(at int64, n int) ([]byte, error) {
		if at+int64(n) > size {
			return nil, io.ErrUnexpectedEOF
		}
		_, err := f.ReadAt(b[:n], at)
		return b[:n], err
	}
	h, err := read(start, 5)
	if err != nil {
		return 0, err
	}
	magic := binary.LittleEndian.Uint32(h)
	if magic&0xFFFFFFF0 == 0x184D2A50 { // skippable frame
		s, err := read(start+4, 4)
		if err != nil {
			return 0, err
		}
		return start + 8 + int64(binary.LittleEndian.Uint32(s)), nil
	}
	if magic != 0xFD2FB528 {
		return 0, fmt.Errorf("no zstd frame at byte %d", start)
	}
	fhd := h[4]
	if fhd&0x08 != 0 {
		return 0, fmt.Errorf("bad zstd frame header at byte %d", start)
	}
	single := fhd&0x20 != 0
	pos := start + 5
	if !single {
		pos++ // window descriptor
	}
	pos += []int64{0, 1, 2, 4}[fhd&3]
	fcs := []int64{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && single {
		fcs = 1
	}
	pos += fcs
	for {
		bh, err := read(pos, 3)
		if err != nil {
			return 0, err
		}
		v := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last, typ, n := v&1 == 1, (v>>1)&3, int64(v>>3)
		switch typ {
		case 1: // RLE: one byte
			n = 1
		case 3:
			return 0, fmt.Errorf("reserved zstd block type at byte %d", pos)
		}
		pos += 3 + n
		if last {
			break
		}
	}
	if fhd&0x04 != 0 {
		pos += 4 // content checksum
	}
	if pos > size {
		return 0, io.ErrUnexpectedEOF
	}
	return pos, nil
}

func oneGzipMember(f io.ReaderAt, at, size int64) bool {
	zr, err := gzip.NewReader(bufio.NewReader(io.NewSectionReader(f, at, size-at)))
	if err != nil {
		return false
	}
	zr.Multistream(false)
	_, err = io.Copy(io.Discard, zr)
	return err == nil
}

func oneZstdFrame(f io.ReaderAt, at, size int64) bool {
	end, err := zstdFrameEnd(f, at, size)
	if err != nil {
		return false
	}
	dec, err := zstd.NewReader(io.NewSectionReader(f, at, end-at), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return false
	}
	defer dec.Close()
	_, err = io.Copy(io.Discard, dec)
	return err == nil
}

// decodesLater reports whether a complete member (frame) starts somewhere
// in [from, size): then a member that does not decode before it is damage,
// not a torn end. It tries at most 64 places where magic occurs.
func decodesLater(f io.ReaderAt, from, size int64, magic []byte, decodes func(f io.ReaderAt, at, size int64) bool) bool {
	tries := 0
	for off := from; off < size && tries < 64; {
		n := min(size-off, tailWindow)
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
			return false
		}
		i := bytes.Index(b, magic)
		if i < 0 {
			if n < int64(len(magic)) || off+n >= size {
				return false
			}
			off += n - int64(len(magic)) + 1
			continue
		}
		tries++
		at := off + int64(i)
		if decodes(f, at, size) {
			return true
		}
		off = at + 1
	}
	return false
}

// allZero reports whether bytes [from, to) of f are all NUL.
func allZero(f io.ReaderAt, from, to int64) bool {
	end, err := dataEnd(io.NewSectionReader(f, from, to-from), to-from)
	return err == nil && end == 0
}
