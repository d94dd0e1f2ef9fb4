package cexport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Salvaging the torn last member of a compressed export. A run killed
// outside a crawl loop (no acks, so no member ended since it began) leaves
// one member holding every item it wrote, torn at its end: cutting it off
// would delete the run. Instead, what decodes of it is read, cut after its
// last whole record (a line; for CSV and TSV a whole record, quoted line
// breaks and all), compressed again as a complete member, and put where
// the torn one began. Only the torn tail is lost.
//
// The new member is first written and fsynced beside the export, as
// OUT.salvage-OFFSET; then the export is cut at OFFSET, the member
// appended and fsynced, and the side file removed. A run killed
// in between finds the side file and finishes the copy first, so no step
// loses what the last one kept.

// salvageName is the side file of a salvaged member to go at offset keep.
func salvageName(path string, keep int64) string {
	return path + ".salvage-" + strconv.FormatInt(keep, 10)
}

// finishSalvage completes a salvage a killed run left half done: the side
// file's member is copied to its offset, the file cut after it. It returns
// the file's new size.
func finishSalvage(f *os.File, path string, size int64) (int64, error) {
	matches, _ := filepath.Glob(globQuote(path) + ".salvage-*")
	for _, side := range matches {
		keep, err := strconv.ParseInt(strings.TrimPrefix(side, path+".salvage-"), 10, 64)
		if err != nil || keep < 0 || keep > size {
			continue // not ours
		}
		member, err := os.ReadFile(side)
		if err != nil {
			return size, err
		}
		if err := putMember(f, keep, member); err != nil {
			return size, err
		}
		if err := os.Remove(side); err != nil {
			return size, err
		}
		size = keep + int64(len(member))
	}
	return size, nil
}

// globQuote escapes the pattern characters of a path for filepath.Glob.
func globQuote(p string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(p)
}

// putMember cuts the file (opened to append) at keep, writes member after
// it and fsyncs it.
func putMember(f *os.File, keep int64, member []byte) error {
	if err := f.Truncate(keep); err != nil {
		return err
	}
	if _, err := f.Write(member); err != nil {
		return err
	}
	return f.Sync()
}

// salvage decodes what it can of the torn member at [keep, size) of f,
// and puts its whole records back as a complete member at keep. It
// returns the records' data ("" when none was whole: the caller cuts the
// member off as before) and the file's new size.
func salvage(f *os.File, path string, keep, size int64, o *Options) ([]byte, int64, error) {
	var data bytes.Buffer
	lim := &limitWriter{w: &data, left: maxSalvage}
	src := bufio.NewReader(io.NewSectionReader(f, keep, size-keep))
	if o.compress == compressZstd {
		dec, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, size, nil
		}
		io.Copy(lim, dec) // up to the tear
		dec.Close()
	} else {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, size, nil
		}
		zr.Multistream(false)
		io.Copy(lim, zr) // up to the tear
	}
	whole := data.Bytes()[:wholeRecords(data.Bytes(), o)]
	if len(whole) == 0 {
		return nil, size, nil
	}
	var member bytes.Buffer
	c := newCompressWriter(o.compress, &member)
	if _, err := c.Write(whole); err != nil {
		return nil, size, err
	}
	if err := c.EndMember(); err != nil {
		return nil, size, err
	}
	side := salvageName(path, keep)
	if err := writeSynced(side, member.Bytes()); err != nil {
		return nil, size, fmt.Errorf("salvage the unfinished member: %w", unwrapPath(err))
	}
	if err := putMember(f, keep, member.Bytes()); err != nil {
		return nil, size, fmt.Errorf("salvage the unfinished member: %w", unwrapPath(err))
	}
	if err := os.Remove(side); err != nil {
		return nil, size, err
	}
	return whole, keep + int64(member.Len()), nil
}

// maxSalvage bounds what is decoded of a torn member (held in memory).
const maxSalvage = 1 << 30

// limitWriter takes at most left bytes, then fails.
type limitWriter struct {
	w    io.Writer
	left int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		n, _ := l.w.Write(p[:l.left])
		l.left -= int64(n)
		return n, errors.New("salvage: too much data")
	}
	l.left -= int64(len(p))
	return l.w.Write(p)
}

// wholeRecords returns the length of data's whole records: up to its last
// line break, and for CSV and TSV up to the end of its last record whose
// line break is not inside quotes.
func wholeRecords(data []byte, o *Options) int {
	end := bytes.LastIndexByte(data, '\n') + 1
	if o.format != formatCSV && o.format != formatTSV {
		return end
	}
	// The byte order mark is not CSV: a quote after it would be bare.
	records := ndjson.TrimBOM(data[:end])
	start := end - len(records)
	r := csv.NewReader(bytes.NewReader(records))
	r.Comma = o.delimiter
	r.FieldsPerRecord = -1
	r.LazyQuotes = false
	whole := 0
	for {
		if _, err := r.Read(); err != nil {
			return whole
		}
		if off := start + int(r.InputOffset()); off > 0 && data[off-1] == '\n' {
			whole = off
		}
	}
}

// writeSynced writes b to a new file name and fsyncs it.
func writeSynced(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
