package ndjson

import (
	"io"
	"sync"

	"github.com/crawlutils/crawlutils/internal/record"
)

const bufSize = 64 << 10

// Writer writes records, one line each. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

// NewWriter returns a Writer on w. Call Flush when done, and whenever the
// input stalls.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, buf: make([]byte, 0, bufSize)}
}

// WriteLine writes one record given as JSON, adding the newline if missing.
// It returns the first error any write has had.
func (w *Writer) WriteLine(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	n := len(line)
	if n == 0 || line[n-1] != '\n' {
		n++
	}
	if len(w.buf)+n > bufSize {
		w.flushLocked()
		if w.err != nil {
			return w.err
		}
	}
	if n > bufSize {
		// Too large to batch: one Write of its own.
		rec := line
		if len(line) < n {
			rec = make([]byte, 0, n)
			rec = append(append(rec, line...), '\n')
		}
		_, w.err = w.w.Write(rec)
		return w.err
	}
	w.buf = append(w.buf, line...)
	if len(line) < n {
		w.buf = append(w.buf, '\n')
	}
	return nil
}

// Write encodes v with record.Encode and writes it.
func (w *Writer) Write(v any) error {
	line, err := record.Encode(v)
	if err != nil {
		return err
	}
	return w.WriteLine(line)
}

// Flush writes what is buffered.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	return w.err
}

func (w *Writer) flushLocked() {
	if w.err != nil || len(w.buf) == 0 {
		return
	}
	_, w.err = w.w.Write(w.buf)
	w.buf = w.buf[:0]
}

// Err returns the first write error.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
