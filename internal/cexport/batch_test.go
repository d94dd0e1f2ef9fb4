package cexport

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// dirFiles lists the names in dir, hidden ones too.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func numbers(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(`{"t":"` + string(rune('a'+i%26)) + `","n":` + itoa(i) + "}\n")
	}
	return b.String()
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestBatchFiles: --batch-items cuts the export into complete files, named
// by the template, each one an export in its format; --stats lists them.
func TestBatchFiles(t *testing.T) {
	for _, format := range []string{"jsonl", "json", "csv", "xml", "jsonl.gz", "csv.zst"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			stats := filepath.Join(dir, "stats.json")
			tmpl := filepath.Join(dir, "out", "items-%(batch_id)03d."+format)
			os.Mkdir(filepath.Join(dir, "out"), 0o777)
			code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "3", "--stats", stats}, numbers(1, 7))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want := []string{"items-001." + format, "items-002." + format, "items-003." + format}
			if got := dirFiles(t, filepath.Join(dir, "out")); !slices.Equal(got, want) {
				t.Fatalf("files %q, want %q", got, want)
			}
			base := strings.Split(format, ".")[0]
			var all []string
			for _, name := range want {
				path := filepath.Join(dir, "out", name)
				if strings.Contains(format, ".") {
					path = decompressTo(t, path, base)
				}
				all = append(all, readBack(t, base, path)...)
			}
			if len(all) != 7 {
				t.Errorf("items %q, want 7", all)
			}
			var st struct {
				Counts map[string]map[string]int64 `json:"counts"`
			}
			data, _ := os.ReadFile(stats)
			if err := json.Unmarshal(data, &st); err != nil {
				t.Fatal(err)
			}
			if f := st.Counts["files"]; len(f) != 3 || f[filepath.Join(dir, "out", want[2])] != 1 {
				t.Errorf("stats files %v", f)
			}
		})
	}
}

// decompressTo writes the decompressed file path to a new file with the
// extension of format and returns its name.
func decompressTo(t *testing.T, path, format string) string {
	t.Helper()
	data := decompress(t, path)
	out := filepath.Join(t.TempDir(), "plain."+format)
	if err := os.WriteFile(out, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBatchRerunAfterKill: a rerun completes the batch a killed run left
// under its temporary name (its acknowledged items stay, an unfinished one
// is cut off), never overwrites a batch file, and numbers its own batches
// after the last one.
func TestBatchRerunAfterKill(t *testing.T) {
	for _, format := range []string{"csv", "json", "jsonl.gz"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			tmpl := filepath.Join(dir, "items-%(batch_id)05d."+format)
			if code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "2"}, numbers(1, 2)); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			first, _ := os.ReadFile(filepath.Join(dir, "items-00001."+format))
			// A run killed while writing batch 2: its part holds one whole
			// item and half of the next.
			part := filepath.Join(dir, ".items-00002."+format+".part")
			scratch := filepath.Join(t.TempDir(), "part."+format)
			if code, stderr := runExport(t, []string{"-O", scratch}, numbers(3, 3)); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			// (a second member for a compressed file)
			if code, stderr := runExport(t, []string{"-o", scratch}, numbers(4, 4)); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			data, _ := os.ReadFile(scratch)
			if !strings.Contains(format, ".") {
				cut := strings.Index(string(data), `"t":"e"`)
				if format == "csv" {
					cut = strings.LastIndex(string(data), "e,")
				}
				data = data[:cut+2]
			} else {
				data = data[:len(data)-3] // the second gzip member torn
			}
			if err := os.WriteFile(part, data, 0o666); err != nil {
				t.Fatal(err)
			}
			code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "2"}, numbers(5, 7))
			if code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, "completed the batch a stopped run left unfinished") {
				t.Errorf("stderr: %s", stderr)
			}
			want := []string{"items-00001." + format, "items-00002." + format, "items-00003." + format, "items-00004." + format}
			if got := dirFiles(t, dir); !slices.Equal(got, want) {
				t.Fatalf("files %q, want %q", got, want)
			}
			if again, _ := os.ReadFile(filepath.Join(dir, want[0])); string(again) != string(first) {
				t.Error("batch 1 was changed")
			}
			base := strings.Split(format, ".")[0]
			var all []string
			for _, name := range want {
				path := filepath.Join(dir, name)
				if strings.Contains(format, ".") {
					path = decompressTo(t, path, base)
				}
				all = append(all, readBack(t, base, path)...)
			}
			// Item 4 was cut short and is not there (its page is fetched
			// again in a crawl loop); item 3 was whole. In a compressed
			// batch only the member's trailer was cut: item 4 decodes
			// whole, and is kept (resume_salvage.go).
			want4 := "bcdfgh"
			if strings.Contains(format, ".") {
				want4 = "bcdefgh"
			}
			if strings.Join(all, "") != want4 {
				t.Errorf("items %q, want %s", all, want4)
			}
		})
	}
}

// TestBatchSeconds: a batch ends once it has been open --batch-seconds,
// at the next item or when the input stalls (fake clock).
func TestBatchSeconds(t *testing.T) {
	dir := t.TempDir()
	o := &Options{Output: filepath.Join(dir, "b-%(batch_id)d.jsonl"), BatchSeconds: 10}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var written []string
	b := &batchExporter{o: o, t: o.batch, warn: t.Logf, now: func() time.Time { return clock },
		written: func(name string, n int) { written = append(written, filepath.Base(name)+":"+itoa(n)) }}
	item := []record.Field{{Key: "a", Value: json.RawMessage("1")}}
	if err := b.Begin(); err != nil {
		t.Fatal(err)
	}
	for _, step := range []time.Duration{0, 5 * time.Second, 5 * time.Second, 0, 9 * time.Second} {
		clock = clock.Add(step)
		if err := b.Write(item); err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(time.Second) // 10 s since batch 2 began: a stall ends it
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := b.End(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"b-1.jsonl:2", "b-2.jsonl:3"}; !slices.Equal(written, want) {
		t.Errorf("batches %q, want %q", written, want)
	}
}

// TestBatchStoreEmpty: with batches, a run without items writes no file
// unless --store-empty is given.
func TestBatchStoreEmpty(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "b-%(batch_id)d.json")
	if code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "5"}, `{"kind":"ack","lease":"x"}`+"\n"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := dirFiles(t, dir); len(got) != 0 {
		t.Fatalf("files %q, want none", got)
	}
	if code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "5", "--store-empty"}, ""); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "b-1.json")); err != nil || string(data) != "[]\n" {
		t.Fatalf("b-1.json: %q, %v", data, err)
	}
}

// TestBatchSecondsWhileStalled: a batch whose --batch-seconds are up is
// finished while the input stalls, not only when the next record comes;
// its ack has passed on before.
func TestBatchSecondsWhileStalled(t *testing.T) {
	dir := t.TempDir()
	e := startExport(t, "-o", filepath.Join(dir, "b-%(batch_id)d.jsonl"), "--batch-seconds", "0.3")
	e.send(t, 1, 2)
	if a := e.ack(10 * time.Second); a != `{"kind":"ack","lease":"L2"}` {
		t.Fatalf("ack: %q; stderr:\n%s", a, e.log())
	}
	first := filepath.Join(dir, "b-1.jsonl")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(first); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no batch file while the input stalled: %q; stderr:\n%s", dirFiles(t, dir), e.log())
		}
	}
	e.send(t, 3, 3)
	e.in.Close()
	if code := <-e.done; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, e.log())
	}
	if got := dirFiles(t, dir); !slices.Equal(got, []string{"b-1.jsonl", "b-2.jsonl"}) {
		t.Fatalf("files %q", got)
	}
	if data, _ := os.ReadFile(first); strings.Count(string(data), "\n") != 2 {
		t.Errorf("b-1.jsonl: %q", data)
	}
}

// TestBatchTemporaryFileError: a batch's temporary file that cannot be
// made is named in the error, with the error; only a file that is there
// already asks whether another cexport writes the template (it was asked
// of every error: a name too long, a read-only directory, a full disk).
func TestBatchTemporaryFileError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := strings.Repeat("b", 244) + "-%(batch_id)d.csv" // its .part name is over 255 bytes
	code, stderr := runExport(t, []string{"-o", filepath.Join(dir, name), "--batch-items", "1"}, numbers(1, 1))
	part := "." + strings.Repeat("b", 244) + "-1.csv.part"
	if code != 1 || !strings.Contains(stderr, part+": file name too long") || strings.Contains(stderr, "another cexport") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	os.WriteFile(filepath.Join(dir, ".items-1.csv.part"), nil, 0o666)
	code, stderr = runExport(t, []string{"-o", filepath.Join(dir, "items-%(batch_id)d.csv"), "--batch-items", "1"}, numbers(1, 1))
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestBatchRerunAfterKillInPublish: a run killed between naming a batch
// file (the link) and removing its temporary name leaves both names on one
// file; the rerun removes the temporary name and goes on, where it used to
// exit 1 ("cannot name the batch file: ... file exists"). A different file
// under the batch's name is still never overwritten.
func TestBatchRerunAfterKillInPublish(t *testing.T) {
	for _, format := range []string{"csv", "json", "jsonl.gz"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			tmpl := filepath.Join(dir, "items-%(batch_id)05d."+format)
			if code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "2"}, numbers(1, 2)); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			first := filepath.Join(dir, "items-00001."+format)
			before, _ := os.ReadFile(first)
			if err := os.Link(first, filepath.Join(dir, ".items-00001."+format+".part")); err != nil {
				t.Fatal(err)
			}
			code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "2"}, numbers(3, 4))
			if code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, stderr)
			}
			want := []string{"items-00001." + format, "items-00002." + format}
			if got := dirFiles(t, dir); !slices.Equal(got, want) {
				t.Fatalf("files %q, want %q", got, want)
			}
			if after, _ := os.ReadFile(first); string(after) != string(before) {
				t.Error("batch 1 was changed")
			}
		})
	}
	t.Run("another file", func(t *testing.T) {
		dir := t.TempDir()
		tmpl := filepath.Join(dir, "items-%(batch_id)05d.csv")
		if code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "2"}, numbers(1, 2)); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		first := filepath.Join(dir, "items-00001.csv")
		before, _ := os.ReadFile(first)
		if err := os.WriteFile(filepath.Join(dir, ".items-00001.csv.part"), []byte("t,n\nz,9\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "2"}, numbers(3, 4))
		if code == 0 || !strings.Contains(stderr, "never overwritten") {
			t.Fatalf("rerun: exit %d: %s", code, stderr)
		}
		if after, _ := os.ReadFile(first); string(after) != string(before) {
			t.Error("batch 1 was changed")
		}
	})
}

// TestBatchXMLNameWarnedOnce: a key renamed for XML is reported once a
// run, not again in every batch file it is in.
func TestBatchXMLNameWarnedOnce(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "items-%(batch_id)d.xml")
	in := strings.Repeat(`{"kind":"item","data":{"\u0000k":1,"a\"b":2}}`+"\n", 3)
	code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "1"}, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{`key "\x00k" is not a valid XML name; written as <_k>`, `key "a\"b" is not a valid XML name; written as <a_b>`} {
		if n := strings.Count(stderr, w); n != 1 {
			t.Errorf("%q reported %d times:\n%s", w, n, stderr)
		}
	}
	if got := dirFiles(t, dir); len(got) != 3 {
		t.Errorf("files %q", got)
	}
}

// TestBatchRerunDropsItemlessPart: a batch a killed run left with no whole
// item (its header, "[" or root start tag, and part of the first item) is
// removed by the rerun, not completed into an empty batch file; one with a
// whole item is completed and named.
func TestBatchRerunDropsItemlessPart(t *testing.T) {
	gz := func(s string) string {
		var b strings.Builder
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	for _, tt := range []struct {
		ext, part string
		kept      bool
	}{
		{"jsonl", `{"t":"a",`, false},
		{"json", "[\n{\"t\":\"a\",", false},
		{"json", "[\n]\n", false},
		{"xml", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n<item><t>a", false},
		{"xml", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n</items>\n", false},
		{"csv", "t,n\na,", false},
		{"csv", "\ufefft,n\n", false},
		{"tsv", "t\tn\na\t", false},
		{"md", "| t | n |\n|---|---|\n| a", false},
		{"csv.gz", gz("t,n\n") + gz("a,1\n")[:10], false},
		{"jsonl.gz", gz(`{"t":"a","n":1}` + "\n")[:15], false},
		{"csv.gz", gz("\ufefft,n\n"), false},
		{"jsonl", "{\"t\":\"a\"}\n{", true},
		{"json", "[\n{\"t\":\"a\"}\n]\n", true},
		{"xml", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n<item><t>a</t></item>\n<it", true},
		{"csv", "\ufefft,n\na,1\n", true},
		{"tsv", "t\tn\na\t1\n", true},
		{"md", "| t | n |\n|---|---|\n| a | 1 |\n", true},
		{"csv.gz", gz("\ufefft,n\na,1\n"), true},
	} {
		t.Run(tt.ext, func(t *testing.T) {
			dir := t.TempDir()
			tmpl := filepath.Join(dir, "items-%(batch_id)05d."+tt.ext)
			if err := os.WriteFile(filepath.Join(dir, ".items-00001."+tt.ext+".part"), []byte(tt.part), 0o666); err != nil {
				t.Fatal(err)
			}
			code, stderr := runExport(t, []string{"-o", tmpl, "--batch-items", "2"}, numbers(2, 2))
			if code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, stderr)
			}
			want := []string{"items-00002." + tt.ext}
			if tt.kept {
				want = []string{"items-00001." + tt.ext, "items-00002." + tt.ext}
			}
			if !slices.Equal(dirFiles(t, dir), want) {
				t.Fatalf("files %q, want %q (%s)", dirFiles(t, dir), want, stderr)
			}
		})
	}
}
