package warc

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// WriterOptions configure a Writer. The zero value of a field is its
// default.
type WriterOptions struct {
	// MaxSize starts a new file before a write that would take the file
	// past it (bytes, compressed); 0: one file. A file holds at least its
	// warcinfo record and one write, whatever their size.
	MaxSize int64
	// Info is the block of each file's warcinfo record: fields such as
	// software, format, robots, one "name: value" per entry.
	Info []Field
	// Now is the clock of warcinfo records; nil: time.Now.
	Now func() time.Time
}

// Writer writes records to a series of WARC files. It is safe for
// concurrent use; Close it at the end.
type Writer struct {
	mu    sync.Mutex
	opts  WriterOptions
	path  string // as given: the first name of the series
	gz    bool   // compress each record
	f     *os.File
	size  int64 // bytes in f
	seq   int   // next candidate number of the series
	files []string
	err   error // a failed write: the file is no longer written
	used  bool  // f holds more than its warcinfo record
	sync  func(*os.File) error
}

// Create returns a Writer of the series named by path (compressed when it
// ends in ".gz"). It creates the first file now, with its warcinfo record.
func Create(path string, opts WriterOptions) (*Writer, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	w := &Writer{opts: opts, path: path, gz: strings.HasSuffix(path, ".gz"), sync: (*os.File).Sync}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

// Files returns the names of the files written so far, in order.
func (w *Writer) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.files...)
}

// Name returns the n-th name of the series of path: path itself for 0,
// then "stem-00001.warc.gz" and so on, stem being path without its
// ".warc.gz", ".warc" or ".gz" ending.
func Name(path string, n int) string {
	if n == 0 {
		return path
	}
	stem, ext := path, ""
	for _, e := range []string{".warc.gz", ".warc", ".gz"} {
		if strings.HasSuffix(path, e) {
			stem, ext = strings.TrimSuffix(path, e), e
			break
		}
	}
	return fmt.Sprintf("%s-%05d%s", stem, n, ext)
}

// open creates the next free file of the series and writes its warcinfo.
func (w *Writer) open() error {
	for {
		name := Name(w.path, w.seq)
		w.seq++
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue // an earlier run's: never appended to
		}
		if err != nil {
			return err
		}
		w.f, w.size, w.used = f, 0, false
		w.files = append(w.files, name)
		return w.writeLocked([]*Record{w.info(filepath.Base(name))})
	}
}

// info is the warcinfo record of the file named name.
func (w *Writer) info(name string) *Record {
	var b strings.Builder
	for _, f := range w.opts.Info {
		fmt.Fprintf(&b, "%s: %s\r\n", f.Name, clean(f.Value))
	}
	r := New(TypeWarcinfo, w.opts.Now(), []byte(b.String()))
	r.Set("WARC-Filename", name)
	r.Set("Content-Type", "application/warc-fields")
	return r
}

// Write appends recs to the current file, in one write, after starting a
// new file if MaxSize says so. The records are compressed before the
// Writer is locked, so concurrent calls compress in parallel. After a
// failed write the Writer fails every later one with the same error.
func (w *Writer) Write(recs ...*Record) error {
	buf := bufPool.Get().(*bytes.Buffer)
	defer putBuffer(&bufPool, buf)
	if err := encode(buf, recs, w.gz); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.opts.MaxSize > 0 && w.used && w.size+int64(buf.Len()) > w.opts.MaxSize {
		if err := w.closeFile(); err != nil {
			w.err = err
			return err
		}
		if err := w.open(); err != nil {
			w.err = err
			return err
		}
	}
	w.used = true
	return w.flush(buf.Bytes())
}

func (w *Writer) writeLocked(recs []*Record) error {
	var buf bytes.Buffer
	if err := encode(&buf, recs, w.gz); err != nil {
		return err
	}
	return w.flush(buf.Bytes())
}

var (
	bufPool   = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	plainPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	gzipPool  = sync.Pool{New: func() any { z, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return z }}
)

// putBuffer keeps b for the next write unless it grew large (one big
// response must not keep its memory).
func putBuffer(p *sync.Pool, b *bytes.Buffer) {
	if b.Cap() <= 4<<20 {
		p.Put(b)
	}
}

// encode serializes recs into buf (reset first), each its own gzip member
// when gz.
func encode(buf *bytes.Buffer, recs []*Record, gz bool) error {
	buf.Reset()
	if !gz {
		for _, r := range recs {
			r.marshal(buf)
		}
		return nil
	}
	plain := plainPool.Get().(*bytes.Buffer)
	defer putBuffer(&plainPool, plain)
	zw := gzipPool.Get().(*gzip.Writer)
	defer gzipPool.Put(zw)
	for _, r := range recs {
		plain.Reset()
		r.marshal(plain)
		zw.Reset(buf)
		if _, err := zw.Write(plain.Bytes()); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
	}
	return nil
}

// flush writes b to the file in one write.
func (w *Writer) flush(b []byte) error {
	n, err := w.f.Write(b)
	w.size += int64(n)
	if err != nil {
		w.err = err
	}
	return err
}

// closeFile syncs the current file to disk and closes it: the last of
// the series at Close, and each one before it as the next is started.
func (w *Writer) closeFile() error {
	err := w.sync(w.f)
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close closes the current file (after syncing it to disk).
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	err := w.closeFile()
	w.f = nil
	if w.err == nil {
		w.err = errors.New("warc: writer closed")
	}
	return err
}

// seriesName matches the names Name gives past the first: stem, number,
// ending.
var seriesName = regexp.MustCompile(`^(.*)-(\d{5,})(\.warc\.gz|\.warc|\.gz)$`)

// SeriesOrder returns names with the files of each series in the order
// they were written (Name's order): a shell's glob, shop*.warc.gz, lists
// shop-00001.warc.gz before shop.warc.gz. A series takes the place of the
// first of its files given; other names keep theirs.
func SeriesOrder(names []string) []string {
	type file struct {
		name  string
		first int // the position of the series' first file given
		n     int
	}
	firsts := map[string]int{}
	files := make([]file, len(names))
	for i, name := range names {
		key, n := name, 0
		if m := seriesName.FindStringSubmatch(name); m != nil {
			key = m[1] + m[3]
			n, _ = strconv.Atoi(m[2])
		}
		if _, ok := firsts[key]; !ok {
			firsts[key] = i
		}
		files[i] = file{name, firsts[key], n}
	}
	slices.SortStableFunc(files, func(a, b file) int {
		return cmp.Or(cmp.Compare(a.first, b.first), cmp.Compare(a.n, b.n))
	})
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.name
	}
	return out
}
