package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 6, 1, 2, 3, 456789000, time.UTC)

func testWriter(t *testing.T, name string, max int64) (*Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	w, err := Create(path, WriterOptions{MaxSize: max, Info: []Field{{"software", "test"}}, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

func readAll(t *testing.T, path string) ([]*Record, []error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readFrom(f, path)
}

func readFrom(f io.ReadSeeker, name string) ([]*Record, []error) {
	r := NewReader(f, name)
	var recs []*Record
	var errs []error
	for i := 0; i < 10000; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec)
	}
	return recs, errs
}

func response(url, body string) *Record {
	r := New(TypeResponse, t0, []byte("HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body))
	r.Set("WARC-Target-URI", url)
	return r
}

func TestWriteRead(t *testing.T) {
	for _, name := range []string{"crawl.warc.gz", "crawl.warc"} {
		t.Run(name, func(t *testing.T) {
			w, path := testWriter(t, name, 0)
			a, b := response("http://a/", "12345"), response("http://b/", "x")
			if err := w.Write(a, b); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			recs, errs := readAll(t, path)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if len(recs) != 3 {
				t.Fatalf("got %d records, want 3", len(recs))
			}
			if recs[0].Type() != TypeWarcinfo || !strings.Contains(string(recs[0].Block), "software: test\r\n") || recs[0].Get("WARC-Filename") != name {
				t.Errorf("warcinfo: %+v %q", recs[0].Fields, recs[0].Block)
			}
			if recs[0].Get("WARC-Date") != "2026-12-06T01:02:03.456789Z" {
				t.Errorf("WARC-Date %q", recs[0].Get("WARC-Date"))
			}
			for i, want := range []*Record{a, b} {
				got := recs[i+1]
				if !bytes.Equal(got.Block, want.Block) || got.Get("WARC-Target-URI") != want.Get("WARC-Target-URI") || got.Get("WARC-Record-ID") != want.Get("WARC-Record-ID") {
					t.Errorf("record %d: got %+v %q", i+1, got.Fields, got.Block)
				}
				if got.Get("WARC-Block-Digest") != Digest(got.Block) {
					t.Errorf("record %d: digest %q, want %q", i+1, got.Get("WARC-Block-Digest"), Digest(got.Block))
				}
			}
			if recs[1].Offset <= recs[0].Offset || recs[2].Offset <= recs[1].Offset {
				t.Errorf("offsets %d %d %d", recs[0].Offset, recs[1].Offset, recs[2].Offset)
			}
		})
	}
}

// TestDigest pins the encoding: SHA-1 in padded base32, as wget and
// Heritrix write it.
func TestDigest(t *testing.T) {
	if got, want := Digest([]byte("hello")), "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N"; got != want {
		t.Errorf("Digest(hello) = %s, want %s", got, want)
	}
}

// TestNeverAppends: a second run's writer starts a new file of the
// series; the first file is left as it was.
func TestNeverAppends(t *testing.T) {
	w, path := testWriter(t, "crawl.warc.gz", 0)
	_ = w.Write(response("http://a/", "1"))
	_ = w.Close()
	before, _ := os.ReadFile(path)
	w2, err := Create(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = w2.Write(response("http://b/", "2"))
	_ = w2.Close()
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("the first file changed")
	}
	want := filepath.Join(filepath.Dir(path), "crawl-00001.warc.gz")
	if got := w2.Files(); len(got) != 1 || got[0] != want {
		t.Errorf("files %v, want [%s]", got, want)
	}
}

func TestRotation(t *testing.T) {
	w, path := testWriter(t, "r.warc.gz", 600)
	for i := 0; i < 20; i++ {
		if err := w.Write(response("http://a/"+strings.Repeat("x", i), strings.Repeat("b", 300))); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.Close()
	files := w.Files()
	if len(files) < 3 || files[0] != path || files[1] != Name(path, 1) {
		t.Fatalf("files %v", files)
	}
	n := 0
	for _, f := range files {
		recs, errs := readAll(t, f)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if recs[0].Type() != TypeWarcinfo {
			t.Errorf("%s starts with %s", f, recs[0].Type())
		}
		n += len(recs) - 1
		st, _ := os.Stat(f)
		if len(recs) > 2 && st.Size() > 600 {
			t.Errorf("%s: %d bytes over the maximum with %d records", f, st.Size(), len(recs))
		}
	}
	if n != 20 {
		t.Errorf("%d records in all, want 20", n)
	}
}

// TestTruncated cuts a file at every byte: the records before the cut
// are read, and the cut one is reported with its offset.
func TestTruncated(t *testing.T) {
	w, path := testWriter(t, "t.warc.gz", 0)
	_ = w.Write(response("http://a/", "first"))
	_ = w.Write(response("http://b/", "second"))
	_ = w.Close()
	data, _ := os.ReadFile(path)
	whole, _ := readAll(t, path)
	for cut := 1; cut < len(data); cut++ {
		recs, errs := readFrom(bytes.NewReader(data[:cut]), "t.warc.gz")
		complete := 0
		for _, r := range whole {
			if r.Offset < int64(cut) {
				complete++
			}
		}
		if len(recs) < complete-1 || len(recs) > complete {
			t.Fatalf("cut at %d: %d records, want %d or %d", cut, len(recs), complete-1, complete)
		}
		if len(recs) == complete-1 {
			var we *Error
			if len(errs) != 1 || !errors.As(errs[0], &we) || we.Offset != whole[complete-1].Offset {
				t.Fatalf("cut at %d: errors %v, want one at offset %d", cut, errs, whole[complete-1].Offset)
			}
		}
	}
}

// TestCorruptMiddle: a damaged member is reported and the ones after it
// are kept.
func TestCorruptMiddle(t *testing.T) {
	w, path := testWriter(t, "c.warc.gz", 0)
	for _, u := range []string{"a", "b", "c"} {
		_ = w.Write(response("http://"+u+"/", strings.Repeat(u, 100)))
	}
	_ = w.Close()
	whole, _ := readAll(t, path)
	data, _ := os.ReadFile(path)
	bad := whole[2].Offset + 20
	data[bad] ^= 0xff
	data[bad+1] ^= 0xff
	recs, errs := readFrom(bytes.NewReader(data), "c.warc.gz")
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "c.warc.gz: offset ") {
		t.Fatalf("errors %v", errs)
	}
	var uris []string
	for _, r := range recs {
		uris = append(uris, r.Get("WARC-Target-URI"))
	}
	if got := strings.Join(uris, " "); got != " http://a/ http://c/" {
		t.Errorf("records %q", got)
	}
}

func TestNotWARC(t *testing.T) {
	_, errs := readFrom(strings.NewReader("<html>hello</html>\n"), "x.html")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "x.html: offset 0: not a WARC record") {
		t.Errorf("errors %v", errs)
	}
}

// TestResyncSkipsGzippedPayloads: after a damaged record, the gzip header
// of a gzipped payload inside it (stored as is by the record's member) is
// not taken for the next record.
func TestResyncSkipsGzippedPayloads(t *testing.T) {
	var page bytes.Buffer
	zw := gzip.NewWriter(&page)
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 4000 {
		fmt.Fprintf(zw, "%x", rnd.Uint64())
	}
	zw.Close()
	w, path := testWriter(t, "g.warc.gz", 0)
	_ = w.Write(response("http://a/", "a"))
	_ = w.Write(response("http://g/", page.String()))
	_ = w.Write(response("http://c/", "c"))
	_ = w.Close()
	whole, _ := readAll(t, path)
	data, _ := os.ReadFile(path)
	inner := bytes.Index(data[whole[2].Offset+10:], []byte{0x1f, 0x8b, 0x08})
	if inner < 0 {
		t.Fatal("the payload's gzip header is not stored as is: the test needs another payload")
	}
	data[whole[2].Offset+20] ^= 0xff // damage the member before the inner header
	recs, errs := readFrom(bytes.NewReader(data), "g.warc.gz")
	var uris []string
	for _, r := range recs {
		uris = append(uris, r.Get("WARC-Target-URI"))
	}
	if len(errs) != 1 || strings.Join(uris, " ") != " http://a/ http://c/" {
		t.Errorf("errors %v, records %q", errs, uris)
	}
	// Cut inside that record: one error, nothing after it.
	recs, errs = readFrom(bytes.NewReader(data[:whole[3].Offset-10]), "g.warc.gz")
	if len(errs) != 1 || len(recs) != 2 {
		t.Errorf("cut: errors %v, %d records", errs, len(recs))
	}
}

// TestReadAgain: a record read from a file is read again from where the
// reader says it is (Offset, Skip), whatever the compression. A file
// gzipped whole is one gzip member: every record had the member's offset,
// and reading one again gave the file's first record, its warcinfo.
func TestReadAgain(t *testing.T) {
	for _, layout := range []string{"per-record.warc.gz", "plain.warc", "whole.warc.gz"} {
		t.Run(layout, func(t *testing.T) {
			name := layout
			if layout == "whole.warc.gz" {
				name = "whole.warc"
			}
			w, path := testWriter(t, name, 0)
			if err := w.Write(response("http://a/", "12345"), response("http://b/", "x"), response("http://c/", "")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if layout == "whole.warc.gz" {
				data, _ := os.ReadFile(path)
				var z bytes.Buffer
				zw := gzip.NewWriter(&z)
				_, _ = zw.Write(data)
				_ = zw.Close()
				path += ".gz"
				if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			recs, errs := readAll(t, path)
			if len(errs) > 0 || len(recs) != 4 {
				t.Fatalf("%d records, errors %v", len(recs), errs)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, want := range recs {
				got, err := ReadAt(f, path, want.Offset, want.Skip)
				if err != nil {
					t.Fatalf("%s at %d+%d: %v", want.Get("WARC-Target-URI"), want.Offset, want.Skip, err)
				}
				if got.Get("WARC-Record-ID") != want.Get("WARC-Record-ID") || !bytes.Equal(got.Block, want.Block) {
					t.Errorf("at %d+%d: read %s %s again, want %s %s", want.Offset, want.Skip, got.Type(), got.Get("WARC-Target-URI"), want.Type(), want.Get("WARC-Target-URI"))
				}
			}
		})
	}
}

// TestPayloadOffset: the payload of an HTTP message block starts after
// the header's empty line, CRLF or a bare LF (as old servers send it, and
// as HTTP readers take it).
func TestPayloadOffset(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  int // -1: no end of header
	}{
		{"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", 25},
		{"HTTP/1.1 200 OK\nA: b\n\nbody", 22},
		{"HTTP/1.1 200 OK\r\nA: b\r\n\nbody", 24},
		{"HTTP/1.1 200 OK\nA: b\n\r\nbody", 23},
		{"HTTP/1.1 204 No Content\r\n\r\n", 27},
		{"HTTP/1.1 200 OK\r\nA: b\r\n", -1},
		{"HTTP/1.1 200 OK\r\nA: b\r\n\r", -1},
		{"", -1},
	} {
		got, ok := PayloadOffset([]byte(tc.block))
		if !ok {
			got = -1
		}
		if got != tc.want {
			t.Errorf("PayloadOffset(%q) = %d, want %d", tc.block, got, tc.want)
		}
	}
}

// TestRotationSyncs: every file of a series is synced to disk before it
// is closed. Only the last one was (at Close): a power cut after the
// crawl had ended lost the end of the files before it.
func TestRotationSyncs(t *testing.T) {
	w, _ := testWriter(t, "s.warc.gz", 600)
	var synced []string
	w.sync = func(f *os.File) error {
		synced = append(synced, f.Name())
		return f.Sync()
	}
	for i := 0; i < 20; i++ {
		if err := w.Write(response("http://a/", strings.Repeat("b", 300))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if files := w.Files(); len(files) < 3 || !slices.Equal(synced, files) {
		t.Errorf("synced %v, want every file of %v", synced, files)
	}
}
