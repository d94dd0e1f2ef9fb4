package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// Error is a record that could not be read: truncated, corrupt, or not a
// WARC record. Offset is where it starts in the file.
type Error struct {
	Name   string
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: offset %d: %v", e.Name, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrTruncated is the Err of an Error at a record cut short.
var ErrTruncated = errors.New("truncated record")

// DefaultMaxBlock is a Reader's default limit on a record's block.
const DefaultMaxBlock = 1 << 30

// Reader reads the records of one WARC file. It is not safe for
// concurrent use.
type Reader struct {
	name     string
	src      io.ReadSeeker
	cr       *countReader
	br       *bufio.Reader
	zr       *gzip.Reader
	member   *bufio.Reader // the gzip member being read; nil between members
	mstart   int64         // offset of that member
	mread    int           // records read from that member
	MaxBlock int64         // records with a longer block are skipped with an *Error
}

// NewReader returns a Reader of r, named name in errors.
func NewReader(r io.ReadSeeker, name string) *Reader {
	cr := &countReader{r: r}
	return &Reader{name: name, src: r, cr: cr, br: bufio.NewReaderSize(cr, 64<<10), MaxBlock: DefaultMaxBlock}
}

// offset is the position of the next unread byte of the file.
func (r *Reader) offset() int64 { return r.cr.n - int64(r.br.Buffered()) }

// Next returns the next record, io.EOF at the end, or an *Error for a
// record that cannot be read; after an *Error, Next goes on with the next
// gzip member found after it (or ends, in a plain file).
func (r *Reader) Next() (*Record, error) {
	for {
		if r.member != nil {
			rec, err := readRecord(r.member, r.MaxBlock)
			if err == io.EOF {
				r.member = nil
				continue
			}
			if err == nil {
				err = memberEnd(r.member)
			}
			if err != nil {
				return nil, r.fail(r.mstart, err)
			}
			rec.Offset, rec.Skip = r.mstart, r.mread
			r.mread++
			return rec, nil
		}
		start := r.offset()
		magic, err := r.br.Peek(2)
		if len(magic) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
			if err := r.startMember(); err != nil {
				return nil, r.fail(start, err)
			}
			r.mstart, r.mread = start, 0
			continue
		}
		if skipBlank(r.br) {
			continue
		}
		rec, err := readRecord(r.br, r.MaxBlock)
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, r.fail(start, err)
		}
		rec.Offset = start
		return rec, nil
	}
}

// memberEnd reads past the blank lines after a record in a gzip member,
// so that the member's end, if it comes, is checked (its CRC and length)
// before the record is returned: a damaged member gives no record.
func memberEnd(m *bufio.Reader) error {
	skipBlank(m)
	if _, err := m.Peek(1); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// skipBlank consumes CR and LF bytes at the reader's position, and says
// whether there were any.
func skipBlank(br *bufio.Reader) bool {
	skipped := false
	for {
		b, err := br.Peek(1)
		if err != nil || (b[0] != '\r' && b[0] != '\n') {
			return skipped
		}
		_, _ = br.ReadByte()
		skipped = true
	}
}

func (r *Reader) startMember() error {
	var err error
	if r.zr == nil {
		r.zr, err = gzip.NewReader(r.br)
	} else {
		err = r.zr.Reset(r.br)
	}
	if err != nil {
		return err
	}
	r.zr.Multistream(false)
	r.member = bufio.NewReaderSize(r.zr, 32<<10)
	return nil
}

// fail makes the *Error of the record at start and moves past it: to the
// next gzip member header after start, or to the end.
func (r *Reader) fail(start int64, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = ErrTruncated
	}
	gz := r.member != nil || r.isGzipAt(start)
	r.member = nil
	next, ok := r.resync(start+1, gz)
	if !ok {
		next, _ = r.src.Seek(0, io.SeekEnd)
	}
	if _, serr := r.src.Seek(next, io.SeekStart); serr == nil {
		r.cr.n = next
		r.br.Reset(r.cr)
	}
	return &Error{Name: r.name, Offset: start, Err: err}
}

// resync finds the offset of the next record at or after from: a gzip
// member that decompresses to "WARC/", or a plain "WARC/1." line. A gzip
// header inside a record (a gzipped payload, stored as is by the record's
// own compression) is not taken for a record.
func (r *Reader) resync(from int64, gz bool) (int64, bool) {
	for {
		p, ok := r.find(from, gz)
		if !ok {
			return 0, false
		}
		if r.startsRecord(p) {
			return p, true
		}
		from = p + 1
	}
}

// find returns the offset of the next gzip header (gz), or "WARC/1.", at
// or after from.
func (r *Reader) find(from int64, gz bool) (int64, bool) {
	if _, err := r.src.Seek(from, io.SeekStart); err != nil {
		return 0, false
	}
	br := bufio.NewReaderSize(r.src, 64<<10)
	pos := from
	mark := []byte("WARC/1.")
	if gz {
		mark = []byte{0x1f, 0x8b, 0x08}
	}
	for {
		buf, err := br.Peek(64 << 10)
		if i := bytes.Index(buf, mark); i >= 0 {
			return pos + int64(i), true
		}
		if err != nil || len(buf) < len(mark) {
			return 0, false
		}
		n := len(buf) - len(mark) + 1
		_, _ = br.Discard(n)
		pos += int64(n)
	}
}

// isGzipAt says whether a gzip header is at offset p.
func (r *Reader) isGzipAt(p int64) bool {
	if _, err := r.src.Seek(p, io.SeekStart); err != nil {
		return false
	}
	head := make([]byte, 2)
	_, err := io.ReadFull(r.src, head)
	return err == nil && head[0] == 0x1f && head[1] == 0x8b
}

// startsRecord says whether a record starts at offset p.
func (r *Reader) startsRecord(p int64) bool {
	if _, err := r.src.Seek(p, io.SeekStart); err != nil {
		return false
	}
	head := make([]byte, 7)
	if _, err := io.ReadFull(r.src, head); err != nil {
		return false
	}
	if string(head) == "WARC/1." {
		return true
	}
	if _, err := r.src.Seek(p, io.SeekStart); err != nil {
		return false
	}
	zr, err := gzip.NewReader(bufio.NewReader(r.src))
	if err != nil {
		return false
	}
	zr.Multistream(false)
	_, err = io.ReadFull(zr, head[:5])
	return err == nil && string(head[:5]) == "WARC/"
}

// readRecord reads one uncompressed record; io.EOF when br is at its end
// (blank lines aside) before a record starts.
func readRecord(br *bufio.Reader, maxBlock int64) (*Record, error) {
	skipBlank(br)
	line, err := readLine(br)
	if err == io.EOF && line == "" {
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "WARC/") {
		return nil, fmt.Errorf("not a WARC record: it starts with %q", truncate(line, 40))
	}
	rec := &Record{}
	for {
		line, err := readLine(br)
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		if (line[0] == ' ' || line[0] == '\t') && len(rec.Fields) > 0 {
			// A folded value goes on; a blank line of white space adds nothing.
			if more := strings.TrimSpace(line); more != "" {
				rec.Fields[len(rec.Fields)-1].Value += " " + more
			}
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("bad header line %q", truncate(line, 40))
		}
		rec.Fields = append(rec.Fields, Field{strings.TrimSpace(name), strings.TrimSpace(value)})
		if len(rec.Fields) > 1000 {
			return nil, errors.New("more than 1000 header fields")
		}
	}
	// The length is read once its value is whole (a folded one too), so
	// the block is the length the record's Content-Length says.
	length := int64(-1)
	for _, f := range rec.Fields {
		if strings.EqualFold(f.Name, "Content-Length") {
			length, err = strconv.ParseInt(f.Value, 10, 64)
			if err != nil || length < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", truncate(f.Value, 40))
			}
		}
	}
	if length < 0 {
		return nil, errors.New("no Content-Length")
	}
	if length > maxBlock {
		return nil, fmt.Errorf("block of %d bytes is over the limit of %d", length, maxBlock)
	}
	rec.Block = make([]byte, 0, min(length, 1<<20))
	buf := bytes.NewBuffer(rec.Block)
	if n, err := io.CopyN(buf, br, length); err != nil {
		if err == io.EOF && n < length {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	rec.Block = buf.Bytes()
	return rec, nil
}

// readLine reads a line of at most 64 KiB, without its CRLF or LF.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > 64<<10 {
			return "", errors.New("header line over 64 KiB")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
