package hostile

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"testing"
)

// TestHostileBombsAreValid: a small bomb of each coding inflates to exactly its
// size of zeros, checksum and all, so a client that stops at its limit
// stops because of the size, not because the stream is broken.
func TestHostileBombsAreValid(t *testing.T) {
	for _, coding := range []string{"gzip", "deflate"} {
		var buf bytes.Buffer
		if err := writeBomb(&buf, coding, 8, func() bool { return false }); err != nil {
			t.Fatal(err)
		}
		var r io.Reader
		var err error
		if coding == "gzip" {
			r, err = gzip.NewReader(&buf)
		} else {
			r, err = zlib.NewReader(&buf)
		}
		if err != nil {
			t.Fatalf("%s: %v", coding, err)
		}
		wire := buf.Len()
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", coding, err)
		}
		if len(got) != 8*segmentSize || bytes.IndexFunc(got, func(r rune) bool { return r != 0 }) >= 0 {
			t.Errorf("%s: inflated to %d bytes, want %d zeros", coding, len(got), 8*segmentSize)
		}
		if ratio := len(got) / wire; ratio < 500 {
			t.Errorf("%s: %d bytes on the wire inflate only %d times", coding, wire, ratio)
		}
	}
}
