package cfetch

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzGzipReader holds cfetch's gzipReader to the standard library's
// multistream gzip.Reader: on any bytes it never panics and gives a prefix
// of what gzip.Reader decodes (never more than the members' data); it
// ends cleanly where gzip.Reader does, with all of it, and where it ends
// cleanly it has given all gzip.Reader decodes. A well-formed stream of
// one or two members followed by bytes that do not begin another
// (padding, a CRLF, an HTML comment) gives exactly the members' data,
// whatever the size of the reads.
func FuzzGzipReader(f *testing.F) {
	for _, tail := range []string{"", "\x00\x00\x00\x00", "\r\n", "<!-- cached -->", "\x1f", "\x1f\x8b", "\x1f\x8b\x08\x00garbage", string(gz([]byte("more")))} {
		f.Add([]byte("hello hello hello"), []byte("second member"), []byte(tail), uint8(1))
		f.Add([]byte("<html>a page</html>"), []byte(nil), []byte(tail), uint8(4<<2))
	}
	f.Add(append(gz([]byte("x")), "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"...), []byte(nil), []byte(nil), uint8(2))
	f.Fuzz(func(t *testing.T, a, b, tail []byte, mode uint8) {
		stream := a // mode&2: any bytes
		if mode&2 == 0 {
			stream = gz(a)
			if mode&1 == 1 {
				stream = append(stream, gz(b)...)
			}
			stream = append(stream, tail...)
		}
		var want []byte
		var werr error
		if zr, err := stdgzip.NewReader(bytes.NewReader(stream)); err != nil {
			werr = err
		} else {
			want, werr = io.ReadAll(zr)
		}

		var got []byte
		var g gzipReader
		err := g.reset(iotest.HalfReader(bytes.NewReader(stream)))
		p := make([]byte, max(1, int(mode>>2)))
		for i := 0; err == nil; i++ {
			if i > 1<<20 {
				t.Fatal("no end")
			}
			var n int
			n, err = g.Read(p)
			got = append(got, p[:n]...)
		}
		if err == io.EOF {
			err = nil
		}
		if !bytes.HasPrefix(want, got) {
			t.Fatalf("gave %d bytes, not a prefix of gzip.Reader's %d (%v)", len(got), len(want), werr)
		}
		if (werr == nil || err == nil) && !bytes.Equal(got, want) {
			t.Fatalf("gave %d bytes (%v), gzip.Reader %d (%v)", len(got), err, len(want), werr)
		}
		if werr == nil && err != nil {
			t.Fatalf("failed (%v) where gzip.Reader read it all", err)
		}
		if mode&2 == 0 && (len(tail) < 2 || tail[0] != 0x1f || tail[1] != 0x8b) {
			members := a
			if mode&1 == 1 {
				members = append(append([]byte(nil), a...), b...)
			}
			if err != nil || !bytes.Equal(got, members) {
				t.Fatalf("members and %q: gave %q, %v; want %q", tail, got, err, members)
			}
		}
	})
}

func gz(b []byte) []byte { return compress("gzip", b) }
