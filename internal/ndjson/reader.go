package ndjson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// DefaultMaxLine is the longest line a Reader accepts by default.
const DefaultMaxLine = 64 << 20

// Line is one input line without its line ending.
type Line struct {
	Source string // file name, or "<stdin>"
	Num    int    // 1-based line number within Source
	Bytes  []byte // owned by the caller
	// Unterminated says the input ended inside this line, without its
	// newline: in a pipeline, the command before most likely died while
	// writing it.
	Unterminated bool
}

// Pos is "source:line", the prefix of every input error message.
func (l Line) Pos() string { return fmt.Sprintf("%s:%d", l.Source, l.Num) }

// LineError is a line that could not be read as a whole; the reader has
// moved past it.
type LineError struct {
	Line Line
	Err  error
}

func (e *LineError) Error() string { return e.Line.Pos() + ": " + e.Err.Error() }

// Reader reads lines from a sequence of inputs.
type Reader struct {
	// MaxLine caps the length of one line; longer lines give a *LineError.
	MaxLine int
	// Comments: the input is a list written by hand (a crawl's seeds), in
	// which a blank line and one whose first other character is "#" are
	// skipped, as wget -i and a shell skip them; they still count for the
	// line numbers. In a stream of records they are errors.
	Comments bool

	names  []string
	stdin  io.Reader
	cur    *bufio.Reader
	closer io.Closer
	source string
	num    int
}

// NewReader reads the named files in order ("-" is stdin), or stdin alone
// when names is empty.
func NewReader(names []string, stdin io.Reader) *Reader {
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Reader{MaxLine: DefaultMaxLine, names: names, stdin: stdin}
}

// OpenError is a file that could not be opened; Next goes on with the next.
type OpenError struct{ Err error }

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// Next returns the next line. At the end of the last input it returns io.EOF.
// A *LineError or *OpenError concerns one line or file only: call Next again.
// Any other error is a read failure of the current input ("read NAME:
// why"), which is then abandoned: call Next again for the inputs after it,
// as cat goes on with its next file.
func (r *Reader) Next() (Line, error) {
	for {
		if r.cur == nil {
			if len(r.names) == 0 {
				return Line{}, io.EOF
			}
			if err := r.open(r.names[0]); err != nil {
				r.names = r.names[1:]
				return Line{}, &OpenError{err}
			}
			r.names = r.names[1:]
		}
		line, err := r.readLine()
		if err == io.EOF {
			r.closeCurrent()
			continue
		}
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				src := r.source
				r.closeCurrent()
				// A file's error names it already ("read x: is a
				// directory"), stdin's as /dev/stdin: name it once, as
				// the messages about its lines do.
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return Line{}, fmt.Errorf("read %s: %w", src, err)
			}
		}
		if err == nil && r.Comments && IsComment(line.Bytes) {
			continue
		}
		return line, err
	}
}

// IsComment reports whether a line of a list written by hand (see
// Reader.Comments) is no entry: blank, or a "#" comment.
func IsComment(b []byte) bool {
	b = bytes.TrimSpace(TrimBOM(b))
	return len(b) == 0 || b[0] == '#'
}

// Buffered reports whether the next line can be read without blocking on
// the underlying input. Callers flush their output when it is false, so a
// pipeline never waits on a buffer while its input stalls.
func (r *Reader) Buffered() bool { return r.cur != nil && r.cur.Buffered() > 0 }

func (r *Reader) open(name string) error {
	r.num = 0
	if name == "-" {
		r.source = "<stdin>"
		r.cur = bufio.NewReaderSize(r.stdin, 64<<10)
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	r.source = name
	r.cur = bufio.NewReaderSize(f, 64<<10)
	r.closer = f
	return nil
}

func (r *Reader) closeCurrent() {
	if r.closer != nil {
		r.closer.Close()
		r.closer = nil
	}
	r.cur = nil
}

var errTooLong = errors.New("line too long")

// BOM is the UTF-8 byte order mark, which Windows editors (Notepad,
// PowerShell's Out-File, Excel's "CSV UTF-8") put at the start of a file.
// At the very start of an input it is not part of the first line, as jq
// and encoding/json's callers that follow RFC 8259 (section 8.1) skip it;
// anywhere else it is data, and a record that holds one is invalid where
// it is parsed.
const BOM = "\xef\xbb\xbf"

// TrimBOM returns a whole file's content without the byte order mark at
// its start, if it has one: the same rule for the files read whole (rules,
// configs) as for the lines of an input.
func TrimBOM(b []byte) []byte { return bytes.TrimPrefix(b, bom) }

var bom = []byte(BOM)

// longLine is the length from which a line is read into one buffer of its
// greatest length, not gathered in copied pieces (see readLine).
var longLine = 8 << 20

// readLine reads one line, copying it out of the bufio buffer.
func (r *Reader) readLine() (Line, error) {
	var buf []byte
	// The full buffers of a line, copied, joined once at its end: not the
	// many regrowths of one slice (bufio.Reader.ReadBytes does the same,
	// without a cap), but the line costs twice its size at the end. So
	// from longLine bytes on (a 50 MB sitemap), the rest of a line is read
	// straight into one buffer of MaxLine bytes (at most DefaultMaxLine,
	// grown past it if need be): the OS backs a fresh buffer's pages only
	// as they are written, so the line costs about its size.
	var full [][]byte
	size := 0
	tooLong := false
	first := r.num == 0 // the first line of this input: it may start with a BOM
	slack := 2          // for "\r\n"
	if first {
		slack += len(bom)
	}
	for {
		chunk, err := r.cur.ReadSlice('\n')
		if !tooLong {
			switch {
			case size+len(chunk) > r.MaxLine+slack:
				tooLong = true
				full, buf = nil, nil
			case buf != nil: // a long line
				buf = append(buf, chunk...)
			case err == bufio.ErrBufferFull && size+len(chunk) < longLine:
				full = append(full, bytes.Clone(chunk))
			default:
				n := size + len(chunk)
				if err == bufio.ErrBufferFull {
					n = max(n, min(r.MaxLine, DefaultMaxLine)+2)
				}
				buf = make([]byte, 0, n)
				for _, f := range full {
					buf = append(buf, f...)
				}
				buf = append(buf, chunk...)
				full = nil
			}
			size += len(chunk)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(chunk) == 0 && len(buf) == 0 && !tooLong {
			return Line{}, io.EOF
		}
		if err != nil && err != io.EOF {
			return Line{}, err
		}
		if first && !tooLong && bytes.HasPrefix(buf, bom) {
			buf = buf[len(bom):]
			if len(buf) == 0 { // a BOM and nothing else: an empty input
				return Line{}, io.EOF
			}
		}
		r.num++
		line := Line{Source: r.source, Num: r.num}
		if tooLong {
			return line, &LineError{line, fmt.Errorf("%w (over %d bytes)", errTooLong, r.MaxLine)}
		}
		line.Unterminated = !bytes.HasSuffix(buf, []byte{'\n'})
		buf = bytes.TrimSuffix(buf, []byte{'\n'})
		buf = bytes.TrimSuffix(buf, []byte{'\r'})
		if len(buf) > r.MaxLine {
			return line, &LineError{line, fmt.Errorf("%w (over %d bytes)", errTooLong, r.MaxLine)}
		}
		line.Bytes = buf
		return line, nil
	}
}
