package cexport

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

var compressions = []string{".gz", ".zst"}

// decompress reads a whole compressed file: every gzip member or zstd
// frame, failing on a torn or damaged one.
func decompress(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := decompressBytes(path, data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// decompressBytes decodes data, compressed as name's suffix says. It
// returns what it decoded and the error that stopped it, if any.
func decompressBytes(name string, data []byte) (string, error) {
	var r io.Reader
	if strings.HasSuffix(name, ".zst") {
		d, err := zstd.NewReader(bytes.NewReader(data))
		if err != nil {
			return "", err
		}
		defer d.Close()
		r = d
	} else {
		if len(data) == 0 {
			return "", nil
		}
		z, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return "", err
		}
		r = z
	}
	var out bytes.Buffer
	_, err := io.Copy(&out, r)
	return out.String(), err
}

// checkWithTool reads path with zcat or zstdcat, when installed, and
// requires what they print to be want.
func checkWithTool(t *testing.T, path, want string) {
	t.Helper()
	tool := "zcat"
	if strings.HasSuffix(path, ".zst") {
		tool = "zstdcat"
	}
	if _, err := exec.LookPath(tool); err != nil {
		t.Logf("%s not installed; not checked with it", tool)
		return
	}
	out, err := exec.Command(tool, path).Output()
	if err != nil || string(out) != want {
		t.Fatalf("%s %s: %v\n%s\nwant:\n%s", tool, path, err, out, want)
	}
}

func TestCompressedAppendRoundTrip(t *testing.T) {
	for _, ext := range compressions {
		for _, format := range []string{"jsonl", "csv"} {
			t.Run(format+ext, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "items."+format+ext)
				first := lines(`{"t":"a","n":1}`, `{"kind":"ack","lease":"L1"}`, `{"t":"b, \"quoted\"\nline","n":2}`)
				second := lines(`{"t":"c","n":3}`)
				for _, in := range []string{first, second} {
					if code, _, stderr := runCexport(t, in, "-o", path); code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
				}
				got := decompress(t, path)
				checkWithTool(t, path, got)
				if format == "jsonl" {
					want := lines(`{"t":"a","n":1}`, `{"t":"b, \"quoted\"\nline","n":2}`, `{"t":"c","n":3}`)
					if got != want {
						t.Fatalf("got:\n%s\nwant:\n%s", got, want)
					}
					return
				}
				recs, err := csv.NewReader(strings.NewReader(got)).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				want := [][]string{{"t", "n"}, {"a", "1"}, {"b, \"quoted\"\nline", "2"}, {"c", "3"}}
				if !equalRecords(recs, want) {
					t.Fatalf("got %q, want %q", recs, want)
				}
			})
		}
	}
}

func equalRecords(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}

func TestCompressedDocuments(t *testing.T) {
	for _, ext := range compressions {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			jsonPath, xmlPath := filepath.Join(dir, "items.json"+ext), filepath.Join(dir, "items.xml"+ext)
			in := lines(`{"t":"a"}`, `{"kind":"ack","lease":"L1"}`, `{"t":"b"}`)
			for _, p := range []string{jsonPath, xmlPath} {
				if code, _, stderr := runCexport(t, in, "-o", p); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
			}
			var items []map[string]string
			if err := json.Unmarshal([]byte(decompress(t, jsonPath)), &items); err != nil || len(items) != 2 {
				t.Fatalf("not a JSON array of 2 items: %v", err)
			}
			if doc := decompress(t, xmlPath); !xmlParses(doc) || strings.Count(doc, "<item>") != 2 {
				t.Fatalf("not an XML document of 2 items:\n%s", doc)
			}
			// -o cannot go on inside the compressed closing; -O starts anew.
			code, _, stderr := runCexport(t, in, "-o", jsonPath)
			if code != cli.ExitFailure || !strings.Contains(stderr, "-o cannot append to a compressed JSON array (its closing ] is inside the compressed data); start a new export with -O") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			code, _, stderr = runCexport(t, in, "-o", xmlPath)
			if code != cli.ExitFailure || !strings.Contains(stderr, "-o cannot append to a compressed XML document") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if code, _, stderr := runCexport(t, lines(`{"t":"c"}`), "-O", jsonPath); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := decompress(t, jsonPath); got != "[\n{\"t\":\"c\"}\n]\n" {
				t.Fatalf("got %q", got)
			}
		})
	}
}

// TestCompressedTornTailIsCut: a run killed mid-member leaves complete
// members and a torn one (here: cut as a kill would leave it, or zeros as a
// crash can leave); the next -o run keeps the whole records that decode of
// the torn member (what zcat reads of it, up to its last line break), cuts
// off the rest, says so, and appends.
func TestCompressedTornTailIsCut(t *testing.T) {
	for _, ext := range compressions {
		for _, tail := range []string{"torn", "zeros"} {
			t.Run(ext+"/"+tail, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "items.jsonl"+ext)
				runCexport(t, lines(`{"n":1}`, `{"n":2}`), "-o", path)
				good, _ := os.ReadFile(path)
				// A member of unacknowledged items, cut short.
				other := filepath.Join(dir, "other.jsonl"+ext)
				runCexport(t, lines(`{"n":"lost 1"}`, `{"n":"lost 2"}`), "-o", other)
				torn, _ := os.ReadFile(other)
				if tail == "torn" {
					torn = torn[:len(torn)-5]
				} else {
					torn = make([]byte, 4096)
				}
				if err := os.WriteFile(path, append(good, torn...), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := decompressBytes(path, append(good, torn...)); err == nil && tail == "torn" {
					t.Fatal("the torn member decodes")
				}
				code, _, stderr := runCexport(t, lines(`{"n":3}`), "-o", path)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				readable, _ := decompressBytes(path, torn)
				if tail == "zeros" {
					readable = ""
				}
				readable = readable[:strings.LastIndexByte(readable, '\n')+1]
				said := "cut off an unfinished "
				if readable != "" {
					said = "kept the " + strconv.Itoa(len(readable)) + " bytes of whole records of an unfinished "
				}
				if tail == "torn" && !strings.Contains(stderr, "items.jsonl"+ext+": "+said+memberName(map[string]string{".gz": compressGzip, ".zst": compressZstd}[ext])+" at its end") {
					t.Fatalf("stderr: %s", stderr)
				}
				if got, want := decompress(t, path), lines(`{"n":1}`, `{"n":2}`)+readable+lines(`{"n":3}`); got != want {
					t.Fatalf("got:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}

func TestCompressedRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Two members with the first one damaged: not a torn tail.
	src := filepath.Join(dir, "src.jsonl.gz")
	runCexport(t, lines(`{"n":1}`), "-o", src)
	runCexport(t, lines(`{"n":2}`), "-o", src)
	data, _ := os.ReadFile(src)
	damaged := bytes.Clone(data)
	damaged[12] ^= 0xff
	for _, tc := range []struct {
		path, want string
	}{
		{write("plain.jsonl.gz", []byte(`{"n":1}`+"\n")), "not gzip data; -o cannot append to it"},
		{write("plain.jsonl.zst", []byte(`{"n":1}`+"\n")), "not zstd data"},
		{write("damaged.jsonl.gz", damaged), "damaged gzip data at byte 0"},
		{write("noeol.jsonl.gz", gzipBytes(t, `{"n":1}`)), "its data does not end with a line break"},
	} {
		before, _ := os.ReadFile(tc.path)
		code, _, stderr := runCexport(t, lines(`{"n":3}`), "-o", tc.path)
		after, _ := os.ReadFile(tc.path)
		if code != cli.ExitFailure || !strings.Contains(stderr, tc.want) || !bytes.Equal(before, after) {
			t.Errorf("%s: exit %d, changed %v, stderr: %s\nwant %q", filepath.Base(tc.path), code, !bytes.Equal(before, after), stderr, tc.want)
		}
	}
}

func gzipBytes(t *testing.T, s string) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(s))
	z.Close()
	return b.Bytes()
}

// TestCompressedAckAfterMemberEnds: when an ack reaches stdout, the items
// before it are in complete members: the file decodes without error.
func TestCompressedAckAfterMemberEnds(t *testing.T) {
	for _, ext := range compressions {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "items.csv"+ext)
			in := newChunkReader()
			type snap struct {
				data string
				err  error
			}
			atAck := make(chan snap, 1)
			var once sync.Once
			stdout := &watchedBuffer{onWrite: func(s string) {
				if strings.Contains(s, `"kind":"ack"`) {
					once.Do(func() {
						b, _ := os.ReadFile(path)
						d, err := decompressBytes(path, b)
						atAck <- snap{d, err}
					})
				}
			}}
			var stderr bytes.Buffer
			code := runAsync(context.Background(), []string{"-o", path}, in, stdout, &stderr)
			in.chunks <- lines(`{"t":"one"}`, `{"t":"two"}`, `{"kind":"ack","lease":"L1"}`)
			s := wait(t, atAck, "the ack on stdout")
			if s.err != nil || s.data != "t\none\ntwo\n" {
				t.Fatalf("at the ack the file decoded to %q (%v)", s.data, s.err)
			}
			close(in.chunks)
			if c := wait(t, code, "Run to return"); c != 0 {
				t.Fatalf("exit %d; stderr:\n%s", c, &stderr)
			}
		})
	}
}

// TestCompressedTornRunKeepsItsRecords: a run outside a crawl loop (no
// acks) writes one member; killed, it leaves that member torn after the
// last flush. The next -o run keeps every whole record of it (CSV records
// with quoted line breaks too), where it used to cut the whole run off;
// a salvage a kill interrupted is finished by the next run.
func TestCompressedTornRunKeepsItsRecords(t *testing.T) {
	for _, ext := range compressions {
		for _, format := range []string{"jsonl", "csv"} {
			t.Run(format+ext, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				path := filepath.Join(dir, "items."+format+ext)
				var whole strings.Builder
				if format == "csv" {
					whole.WriteString("n,note\n")
				}
				for i := range 2000 {
					if format == "csv" {
						fmt.Fprintf(&whole, "%d,\"line one\nline two of %d\"\n", i, i)
					} else {
						fmt.Fprintf(&whole, "{\"n\":%d}\n", i)
					}
				}
				var file bytes.Buffer
				c := newCompressWriter(map[string]string{".gz": compressGzip, ".zst": compressZstd}[ext], &file)
				c.Write([]byte(whole.String()))
				c.Flush() // the input stalled: all of it is in the file
				c.Write([]byte("half a rec"))
				if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				next := `{"n":"next","note":"x"}`
				code, _, stderr := runCexport(t, lines(next), "-o", path)
				if code != 0 || !strings.Contains(stderr, "kept the "+strconv.Itoa(whole.Len())+" bytes of whole records") {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				want := whole.String() + lines(next)
				if format == "csv" {
					want = whole.String() + "next,x\n"
				}
				if got := decompress(t, path); got != want {
					t.Fatalf("got %d bytes, want %d:\n%.300s", len(got), len(want), got[max(0, len(got)-300):])
				}
				checkWithTool(t, path, want)

				// A salvage killed after its side file was written: the
				// next run finishes it before it appends.
				c2 := newCompressWriter(map[string]string{".gz": compressGzip, ".zst": compressZstd}[ext], &file)
				file.Reset()
				c2.Write([]byte(want))
				c2.EndMember()
				keep := int64(file.Len())
				c2.Write([]byte(lines(`{"n":"torn"}`)))
				c2.Flush()
				salvaged := bytes.Clone(file.Bytes()[keep:])
				var member bytes.Buffer
				c3 := newCompressWriter(map[string]string{".gz": compressGzip, ".zst": compressZstd}[ext], &member)
				c3.Write([]byte(lines(`{"n":"torn"}`)))
				c3.EndMember()
				os.WriteFile(path, append(file.Bytes()[:keep:keep], salvaged[:len(salvaged)/2]...), 0o644)
				os.WriteFile(salvageName(path, keep), member.Bytes(), 0o644)
				if code, _, stderr := runCexport(t, "", "-o", path); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if _, err := os.Stat(salvageName(path, keep)); !os.IsNotExist(err) {
					t.Errorf("the side file is left: %v", err)
				}
				if got := decompress(t, path); got != want+lines(`{"n":"torn"}`) {
					t.Fatalf("after an interrupted salvage, got %d bytes:\n%.300s", len(got), got[max(0, len(got)-300):])
				}
			})
		}
	}
}

// TestCompressedCSVWithAByteOrderMark: a compressed CSV whose quoted header
// follows a byte order mark (R's write.csv, pandas' QUOTE_ALL, gzipped)
// fixes the columns of the rows appended to it. Its header was not read
// (a "bare quote" to the CSV reader), so the new rows went in the item's
// order under another header; and of a torn member that began so, no
// record was kept.
func TestCompressedCSVWithAByteOrderMark(t *testing.T) {
	t.Parallel()
	const have = "\ufeff\"title\",\"price\"\r\n\"A\",1\r\n"
	for _, ext := range compressions {
		for _, torn := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s torn %v", ext, torn), func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(t.TempDir(), "items.csv"+ext)
				var file bytes.Buffer
				c := newCompressWriter(map[string]string{".gz": compressGzip, ".zst": compressZstd}[ext], &file)
				c.Write([]byte(have))
				if torn {
					c.Flush()
					c.Write([]byte("\"B\",2"))
				} else {
					c.EndMember()
				}
				if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				if code, _, stderr := runCexport(t, lines(`{"price":3,"title":"C"}`), "-o", path); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if got, want := decompress(t, path), have+"C,3\n"; got != want {
					t.Fatalf("got %q, want %q", got, want)
				}
			})
		}
	}
}
