package cexport

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression of the -o file, from its suffix (items.csv.gz,
// items.jsonl.zst). The export is compressed as it is written (a stream,
// never held whole), and cut into gzip members or zstd frames: a member
// (frame) ends whenever the items before an ack are made durable, so every
// acknowledged item is in a complete member, which any reader decodes.
//
// When the input stalls, the compressor is flushed (gzip's sync flush, a
// zstd block), so a reader following the file sees the items at once; the
// member it is in is still open. A run killed at any moment leaves the
// file's complete members, and at most one torn member after them: a
// reader (zcat, zstdcat, Go's readers) decodes every complete member, then
// what was flushed of the torn one (whole items, up to the last flush,
// perhaps part of one more), and then reports an unexpected end of file.
// That member's items were never acknowledged: the next -o run cuts it off
// (resume_compress.go) and appends new members, so the file reads as one
// stream again.

// Compression of the -o file, from its suffix.
const (
	compressGzip = "gzip"
	compressZstd = "zstd"
)

// compressionOf returns the file name without its compression suffix, and
// the compression it names ("" for none).
func compressionOf(name string) (base, compress string) {
	ext := filepath.Ext(name)
	switch strings.ToLower(ext) {
	case ".gz":
		return name[:len(name)-len(ext)], compressGzip
	case ".zst":
		return name[:len(name)-len(ext)], compressZstd
	}
	return name, ""
}

// memberEncoder is a gzip.Writer or a zstd.Encoder: Reset starts a new
// member (frame) on w, Flush pushes out what was written so far, Close ends
// the member.
type memberEncoder interface {
	io.Writer
	Reset(w io.Writer)
	Flush() error
	Close() error
}

// compressWriter compresses what is written to it into w, one member at a
// time. It is not safe for concurrent use.
type compressWriter struct {
	w   io.Writer
	enc memberEncoder
	// open says a member is started (something was written since the
	// last one ended); flushed says nothing was written since Flush.
	open, flushed bool
}

func newCompressWriter(kind string, w io.Writer) *compressWriter {
	var enc memberEncoder
	if kind == compressZstd {
		// One goroutine: the export is one stream, and an encoder with
		// its own workers would hold blocks that Flush must wait for.
		z, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		enc = z
	} else {
		enc = gzip.NewWriter(nil)
	}
	return &compressWriter{w: w, enc: enc}
}

func (c *compressWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !c.open {
		c.enc.Reset(c.w)
		c.open = true
	}
	c.flushed = false
	return c.enc.Write(p)
}

// Flush writes out what the compressor holds, within the open member.
func (c *compressWriter) Flush() error {
	if !c.open || c.flushed {
		return nil
	}
	c.flushed = true
	return c.enc.Flush()
}

// EndMember ends the open member (if any): its trailer is written, and the
// next Write starts another.
func (c *compressWriter) EndMember() error {
	if !c.open {
		return nil
	}
	c.open = false
	return c.enc.Close()
}
