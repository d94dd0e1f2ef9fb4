package cexport

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// Items whose text and arrays hold what a cut could be mistaken for: the
// CSV quote, delimiter and line break; "]" and the XML root's end tag.
var resumeItems = []string{
	`{"t":"A, \"quoted\"\nnext line","items":["x","]"]}`,
	`{"t":"B </items>\n</items>","items":[]}`,
	`{"t":"C","items":[["nested"]]}`,
}

const newItem = `{"t":"N","items":["new"]}`

var exportFormats = []string{"jsonl", "json", "csv", "xml"}

// runExport runs cexport with args and stdin in; it returns the exit
// status and stderr.
func runExport(t *testing.T, args []string, in string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), append([]string{"-q"}, args...), strings.NewReader(in), &stdout, &stderr)
	return code, stderr.String()
}

// readBack reads an export file with the standard library's decoder for
// its format, failing unless it is one valid document, and returns the
// "t" of each item.
func readBack(t *testing.T, format, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type item struct {
		T string `json:"t" xml:"t"`
	}
	var items []item
	switch format {
	case "jsonl":
		for line := range strings.Lines(string(data)) {
			var it item
			if err := json.Unmarshal([]byte(line), &it); err != nil {
				t.Fatalf("%s: line %q: %v", path, line, err)
			}
			items = append(items, it)
		}
	case "json":
		if err := json.Unmarshal(data, &items); err != nil {
			t.Fatalf("%s is not one JSON array: %v\n%s", path, err, data)
		}
	case "csv":
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || len(rows) == 0 {
			t.Fatalf("%s is not CSV with a header: %v\n%s", path, err, data)
		}
		col := slices.Index(rows[0], "t")
		for _, row := range rows[1:] {
			items = append(items, item{T: row[col]})
		}
	case "xml":
		if !wellFormed(data) {
			t.Fatalf("%s is not one XML document:\n%s", path, data)
		}
		var doc struct {
			Items []item `xml:"item"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		items = doc.Items
	}
	ts := []string{}
	for _, it := range items {
		ts = append(ts, it.T)
	}
	return ts
}

// ts returns the "t" of each item (JSON objects).
func ts(t *testing.T, objects ...string) []string {
	out := []string{}
	for _, o := range objects {
		var it struct{ T string }
		if err := json.Unmarshal([]byte(o), &it); err != nil {
			t.Fatal(err)
		}
		out = append(out, it.T)
	}
	return out
}

func lines(objects ...string) string { return strings.Join(objects, "\n") + "\n" }

// TestAppendTwice: -o appends, in every format, and the file is one valid
// document after each run, with every item once; a run without items
// leaves it as it is; -O starts over.
func TestAppendTwice(t *testing.T) {
	t.Parallel()
	for _, format := range exportFormats {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "items."+format)
			run := func(flag, in string, want ...string) {
				t.Helper()
				if code, stderr := runExport(t, []string{flag, path}, in); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if got := readBack(t, format, path); !slices.Equal(got, ts(t, want...)) {
					t.Fatalf("after %s: items %q, want %q", flag, got, ts(t, want...))
				}
			}
			a, b, c := resumeItems[0], resumeItems[1], resumeItems[2]
			run("-o", lines(a, b), a, b)
			run("-o", lines(c), a, b, c)
			before, _ := os.ReadFile(path)
			run("-o", "", a, b, c)
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Fatalf("a run without items changed the file:\n%s\nto\n%s", before, after)
			}
			run("-o", lines(newItem), a, b, c, newItem)
			run("-O", lines(newItem), newItem)
		})
	}
}

// TestAppendKeepsTheFormat: what -o appends to a file cexport wrote is
// byte for byte what one run with all the items writes.
func TestAppendKeepsTheFormat(t *testing.T) {
	t.Parallel()
	for _, format := range exportFormats {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			once, twice := filepath.Join(dir, "once."+format), filepath.Join(dir, "twice."+format)
			runExport(t, []string{"-o", once}, lines(resumeItems...))
			runExport(t, []string{"-o", twice}, lines(resumeItems[:1]...))
			runExport(t, []string{"-o", twice}, lines(resumeItems[1:]...))
			a, _ := os.ReadFile(once)
			b, _ := os.ReadFile(twice)
			if !bytes.Equal(a, b) {
				t.Fatalf("appended:\n%s\nwant:\n%s", b, a)
			}
		})
	}
}

// TestResumeAfterACut cuts a file at every byte, as a run killed mid-write
// would leave it, and appends to it with -o: the result is one valid
// document with every item that was complete before the cut, then the new
// one.
func TestResumeAfterACut(t *testing.T) {
	t.Parallel()
	for _, format := range exportFormats {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			full := filepath.Join(dir, "full."+format)
			runExport(t, []string{"-O", full}, lines(resumeItems...))
			data, _ := os.ReadFile(full)
			ends := itemEnds(t, format, resumeItems)
			path := filepath.Join(dir, "cut."+format)
			for cut := range len(data) + 1 {
				os.WriteFile(path, data[:cut], 0o644)
				code, stderr := runExport(t, []string{"-o", path}, lines(newItem))
				if code != 0 {
					t.Fatalf("cut at %d (%q): exit %d: %s", cut, data[:cut], code, stderr)
				}
				complete := 0
				for complete < len(ends) && ends[complete] <= int64(cut) {
					complete++
				}
				want := ts(t, append(slices.Clone(resumeItems[:complete]), newItem)...)
				if got := readBack(t, format, path); !slices.Equal(got, want) {
					b, _ := os.ReadFile(path)
					t.Fatalf("cut at %d (%q): items %q, want %q; file:\n%s", cut, data[:cut], got, want, b)
				}
			}
		})
	}
}

// itemEnds returns the offset where each item's bytes end in an export of
// objects: the length of the export of the items up to it, less what comes
// after the last item (the closing, and the line break that XML and JSON
// do not need to keep).
func itemEnds(t *testing.T, format string, objects []string) []int64 {
	after := map[string]int{"jsonl": 0, "csv": 0, "json": len("\n]\n"), "xml": len("\n</items>\n")}[format]
	var ends []int64
	for i := range objects {
		var stdout, stderr bytes.Buffer
		if code := execute(context.Background(), []string{"-q", "-f", format}, strings.NewReader(lines(objects[:i+1]...)), &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, &stderr)
		}
		ends = append(ends, int64(stdout.Len()-after))
	}
	return ends
}

// TestResumeReportsTheCut: cutting off an unfinished item is said on
// stderr, even with -q; cutting blanks is not. Zeros a power loss left
// where unsynced data was to go are cut off, with all that follows them.
func TestResumeReportsTheCut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "items.json")
	os.WriteFile(path, []byte("[\n{\"t\":\"A\"},\n{\"t\":\"B"), 0o644)
	code, stderr := runExport(t, []string{"-o", path}, "")
	if code != 0 || !strings.Contains(stderr, "cexport: "+path+": cut off the unfinished item at its end (9 bytes)") {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "[\n{\"t\":\"A\"}\n]\n" {
		t.Fatalf("file %q", b)
	}
	path = filepath.Join(dir, "nuls.xml") // where a crash left unsynced data
	os.WriteFile(path, []byte("<items>\n<item><t>A</t></item>\n\x00\x00<item><t>B</t></item>\n\x00\x00\x00"), 0o644)
	if code, stderr := runExport(t, []string{"-o", path}, `{"t":"C"}`); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "<items>\n<item><t>A</t></item>\n<item><t>C</t></item>\n</items>\n" {
		t.Fatalf("file %q", b)
	}
	path = filepath.Join(dir, "closed-nuls.json") // the block before the closing lost
	os.WriteFile(path, []byte("[\n{\"t\":\"A\"}\x00\x00\x00\x00\n]\n"), 0o644)
	if code, stderr := runExport(t, []string{"-o", path}, ""); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "[\n{\"t\":\"A\"}\n]\n" {
		t.Fatalf("file %q", b)
	}
	path = filepath.Join(dir, "blank.jsonl")
	os.WriteFile(path, []byte("{\"t\":\"A\"}\n  \x00\x00"), 0o644)
	if code, stderr := runExport(t, []string{"-o", path}, ""); code != 0 || stderr != "" {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
}

// TestAppendToForeignFiles: files cexport did not write go on too: a
// pretty-printed JSON array, an empty one, Scrapy's XML on one line, a
// CSV with CRLF line endings.
func TestAppendToForeignFiles(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, have, want string }{
		{"pretty.json", "[\n  {\n    \"t\": \"A\"\n  }\n]\n", "[\n  {\n    \"t\": \"A\"\n  },\n{\"t\":\"N\"}\n]\n"},
		{"one-line.json", `[{"t":"A"}]`, "[{\"t\":\"A\"},\n{\"t\":\"N\"}\n]\n"},
		{"empty.json", "[]", "[\n{\"t\":\"N\"}\n]\n"},
		{"blank.json", " \n", "[\n{\"t\":\"N\"}\n]\n"},
		{"scrapy.xml", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items><item><t>A</t></item></items>",
			"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items><item><t>A</t></item><item><t>N</t></item>\n</items>\n"},
		{"crlf.csv", "t\r\nA\r\n", "t\r\nA\r\nN\n"},
		// Saved by a spreadsheet ("CSV UTF-8" starts with a byte order
		// mark, Windows ends lines with CR LF): the header is still t,u.
		{"bom.csv", "\ufefft,u\nA,B\n", "\ufefft,u\nA,B\nN,M\n"},
		// R's write.csv (fileEncoding "UTF-8-BOM") and pandas' QUOTE_ALL
		// quote every name: the first one right after the mark was a
		// "bare quote" to the CSV reader, and -o refused the file.
		{"bom-quoted.csv", "\ufeff\"t\",\"u\"\r\n\"A\",\"B\"\r\n", "\ufeff\"t\",\"u\"\r\n\"A\",\"B\"\r\nN,M\n"},
		{"bom.tsv", "\ufefft\tu\nA\tB\n", "\ufefft\tu\nA\tB\nN\tM\n"},
		{"crlf.tsv", "t\tu\r\nA\tB\r\n", "t\tu\r\nA\tB\r\nN\tM\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name)
			os.WriteFile(path, []byte(tt.have), 0o644)
			item := `{"t":"N"}`
			if strings.HasPrefix(tt.name, "bom") || tt.name == "crlf.tsv" {
				item = `{"t":"N","u":"M"}`
			}
			if code, stderr := runExport(t, []string{"-o", path}, item); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.want {
				t.Fatalf("file %q, want %q", b, tt.want)
			}
		})
	}
}

// TestRefusesWhatItCannotAppendTo: a file that is not an export in the
// format, or is damaged before its end, is not truncated: exit 1, the file
// unchanged.
func TestRefusesWhatItCannotAppendTo(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, have, why string }{
		{"object.json", `{"t":"A"}`, `not a JSON array (it starts with '{')`},
		{"middle.json", "[\n{\"t\":\"A\"}\n{\"t\":\"B\"},\n{\"t\":", "invalid JSON at byte 12"},
		{"trailing.json", "[\n{\"t\":\"A\"}\n]\n[", "more after the end of the JSON array"},
		{"nesting.xml", "<items>\n<item><t>A</item>\n<item>", "element <t> closed by </item>"},
		{"latin1.xml", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<items>\n", `encoding "ISO-8859-1" declared`},
		{"self-closed.xml", "<items/>", "its root element <items/> is empty"},
		{"quote.csv", "t,n\nA,b\"c\nB,2\n", `bare " in non-quoted-field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name)
			os.WriteFile(path, []byte(tt.have), 0o644)
			code, stderr := runExport(t, []string{"-o", path}, `{"t":"N"}`)
			want := "cexport: " + path + ": "
			if code != cli.ExitFailure || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, tt.why) ||
				!strings.Contains(stderr, "-o cannot append to it (repair it, or start a new export with -O)") {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.have {
				t.Fatalf("the file was changed to %q", b)
			}
		})
	}
}

// TestOutputFlags: an unknown extension, or -o with -O, is a usage error
// that creates no file; --append is what -o does.
func TestOutputFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "items.txt")},
		{"-O", filepath.Join(dir, "items")},
		{"-o", filepath.Join(dir, "a.csv"), "-O", filepath.Join(dir, "b.csv")},
		{"--append", "-O", filepath.Join(dir, "a.csv")},
	} {
		if code, stderr := runExport(t, args, `{"t":"N"}`); code != cli.ExitUsage {
			t.Errorf("%q: exit %d, want 2; stderr:\n%s", args, code, stderr)
		}
	}
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Fatalf("files created: %v", files)
	}
	path := filepath.Join(dir, "items.txt")
	if code, stderr := runExport(t, []string{"-o", path, "-f", "csv"}, `{"t":"N"}`); code != 0 {
		t.Fatalf("-f chooses the format: exit %d: %s", code, stderr)
	}
	path = filepath.Join(dir, "items.json")
	for range 2 {
		if code, stderr := runExport(t, []string{"--append", "-o", path}, `{"t":"N"}`); code != 0 {
			t.Fatalf("--append: exit %d: %s", code, stderr)
		}
	}
	if got := readBack(t, "json", path); !slices.Equal(got, []string{"N", "N"}) {
		t.Fatalf("--append: items %q", got)
	}
}

// TestDocumentValidWhileRunning: between flushes a JSON array or XML file
// is one valid document: here when an ack comes out (its items are
// flushed and fsynced), while the input stalls; the next items go on in
// it.
func TestDocumentValidWhileRunning(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "xml"} {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "items."+format)
			runExport(t, []string{"-o", path}, lines(resumeItems[0]))
			in := newChunkReader()
			fileAtAck := make(chan []byte, 1)
			var once sync.Once
			stdout := &watchedBuffer{onWrite: func(s string) {
				if strings.Contains(s, `"kind":"ack"`) {
					once.Do(func() {
						b, _ := os.ReadFile(path)
						fileAtAck <- b
					})
				}
			}}
			var stderr bytes.Buffer
			code := runAsync(context.Background(), []string{"-q", "-o", path}, in, stdout, &stderr)
			in.chunks <- lines(resumeItems[1], `{"kind":"ack","lease":"L1"}`)
			mid := wait(t, fileAtAck, "the ack")
			check := filepath.Join(t.TempDir(), "mid."+format)
			os.WriteFile(check, mid, 0o644)
			if got := readBack(t, format, check); !slices.Equal(got, ts(t, resumeItems[:2]...)) {
				t.Fatalf("while running: items %q", got)
			}
			in.chunks <- lines(resumeItems[2])
			close(in.chunks)
			if c := wait(t, code, "Run to return"); c != 0 {
				t.Fatalf("exit %d: %s", c, &stderr)
			}
			if got := readBack(t, format, path); !slices.Equal(got, ts(t, resumeItems...)) {
				t.Fatalf("at the end: items %q", got)
			}
		})
	}
}

func ExampleOptions_overwrite() {
	o := Options{Output: "items.json", Overwrite: true}
	fmt.Println(o.Validate(), o.format, o.outputFlag())
	// Output: <nil> json -O
}

// TestCSVFirstNameWithBOM: a first field name starting with U+FEFF is
// quoted in the header, so neither a reader (which drops a byte order mark
// at the start of a file) nor a rerun appending to the file loses it.
func TestCSVFirstNameWithBOM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "items.csv")
	for _, in := range []string{`{"\ufeffk":1,"b":2}`, `{"\ufeffk":3,"b":4}`} {
		if code, stderr := runExport(t, []string{"-o", path}, in+"\n"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	data, _ := os.ReadFile(path)
	if want := "\"\ufeffk\",b\n1,2\n3,4\n"; string(data) != want {
		t.Fatalf("file %q, want %q", data, want)
	}
}
