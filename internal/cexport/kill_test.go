package cexport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/pgtest"
)

// killAfterAcked is how many acknowledged items a killed run has passed on
// before the SIGKILL.
const killAfterAcked = 3000

// ackEvery: the input has an ack after every this many items; the ack's
// lease is the number of the last of them.
const ackEvery = 10

// killMidStream runs the real cexport command with args, feeding it items
// {"n": i, "s": …} and an ack after every ackEvery of them as fast as it
// reads, and SIGKILLs it once acks for killAfterAcked items have come out
// (while it is still reading and writing). It returns the highest item
// number acknowledged.
func killMidStream(t *testing.T, args ...string) int {
	t.Helper()
	cmd := exec.Command("cexport", append([]string{"-q"}, args...)...) // on PATH: see TestMain
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		w := bufio.NewWriter(stdin)
		for i := 0; ; i++ {
			fmt.Fprintf(w, `{"kind":"item","data":{"n":%d,"s":"item, \"%d\"\nwith a line break","tags":["a"]}}`+"\n", i, i)
			if i%ackEvery == ackEvery-1 {
				fmt.Fprintf(w, `{"kind":"ack","lease":"%d"}`+"\n", i)
			}
			if i%200 == 0 && w.Flush() != nil {
				return // killed
			}
		}
	}()
	acked := -1
	deadline := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var a struct{ Kind, Lease string }
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil || a.Kind != "ack" {
			t.Fatalf("stdout: %q", sc.Text())
		}
		n, _ := strconv.Atoi(a.Lease)
		if n <= acked {
			t.Fatalf("ack %d after ack %d", n, acked)
		}
		acked = n
		if acked >= killAfterAcked {
			// A little later, at a moment that varies: while it writes.
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("cexport was not killed (%v; %d acked); stderr:\n%s", err, acked, &stderr)
	}
	return acked
}

// requireAcked fails unless every item 0..acked is among got (item
// numbers), and each item in got is a well-formed one.
func requireAcked(t *testing.T, got []int, acked int) {
	t.Helper()
	seen := make(map[int]bool, len(got))
	for _, n := range got {
		seen[n] = true
	}
	for i := 0; i <= acked; i++ {
		if !seen[i] {
			t.Fatalf("item %d was acknowledged (up to %d) but is not in the output (%d items)", i, acked, len(got))
		}
	}
	t.Logf("%d items acknowledged, %d in the output", acked+1, len(got))
}

// itemNumbers reads an export (after its rerun) with the standard
// library's decoder for its format, strictly, and returns the items' n.
func itemNumbers(t *testing.T, format, data string) []int {
	t.Helper()
	type item struct {
		N int    `json:"n" xml:"n"`
		S string `json:"s" xml:"s"`
	}
	var items []item
	switch format {
	case "jsonl":
		for line := range strings.Lines(data) {
			var it item
			if err := json.Unmarshal([]byte(line), &it); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			items = append(items, it)
		}
	case "json":
		if err := json.Unmarshal([]byte(data), &items); err != nil {
			t.Fatalf("not a JSON array: %v", err)
		}
	case "xml":
		var doc struct {
			Items []item `xml:"item"`
		}
		if err := xml.Unmarshal([]byte(data), &doc); err != nil {
			t.Fatalf("not an XML document: %v", err)
		}
		items = doc.Items
	case "csv":
		recs, err := csv.NewReader(strings.NewReader(data)).ReadAll()
		if err != nil || len(recs) == 0 || strings.Join(recs[0], ",") != "n,s,tags" {
			t.Fatalf("not a CSV file with its header (%v)", err)
		}
		for _, r := range recs[1:] {
			n, err := strconv.Atoi(r[0])
			if err != nil {
				t.Fatalf("row %q: %v", r, err)
			}
			items = append(items, item{N: n, S: r[1]})
		}
	}
	ns := make([]int, len(items))
	for i, it := range items {
		if it.S != fmt.Sprintf("item, \"%d\"\nwith a line break", it.N) {
			t.Fatalf("item %d has s %q", it.N, it.S)
		}
		ns[i] = it.N
	}
	return ns
}

// TestKillMidStream SIGKILLs cexport mid-stream on every sink and checks
// that every item it acknowledged is in the output, and that the output is
// readable: a compressed file's complete members as they are, every file
// after rerunning cexport -o on it (which cuts off what the kill left
// unfinished), a database table at once.
func TestKillMidStream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command on every sink")
	}
	for _, name := range []string{"items.jsonl", "items.csv", "items.json", "items.xml", "items.jsonl.gz", "items.csv.gz", "items.jsonl.zst", "items.csv.zst", "items.json.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			acked := killMidStream(t, "-o", path)
			base, comp := compressionOf(name)
			format := strings.TrimPrefix(filepath.Ext(base), ".")
			if comp != "" {
				// The complete members decode; the torn one after them
				// may stop the reader, after the acknowledged items.
				data, _ := os.ReadFile(path)
				got, err := decompressBytes(name, data)
				if err != nil {
					t.Logf("a reader of the killed file: %v after %d bytes", err, len(got))
				}
				if format != "json" {
					requireAcked(t, itemNumbers(t, format, completeMembers(t, name, data)), acked)
				}
			}
			// The rerun repairs the file (a compressed JSON array cannot be
			// appended to: -O starts anew).
			if format == "json" && comp != "" {
				return
			}
			code, _, stderr := runCexport(t, "", "-o", path)
			if code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, stderr)
			}
			var data string
			if comp != "" {
				data = decompress(t, path)
			} else {
				b, _ := os.ReadFile(path)
				data = string(b)
			}
			requireAcked(t, itemNumbers(t, format, data), acked)
		})
	}
	for _, ext := range []string{"csv", "json", "jsonl.gz"} {
		t.Run("batches."+ext, func(t *testing.T) { killBatches(t, ext) })
	}
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "items.db")
		acked := killMidStream(t, "-o", "sqlite:"+path+"?table=books", "--key", "n")
		wantRows(t, sqliteRows(t, path, "PRAGMA integrity_check"), "ok")
		requireAcked(t, dbNumbers(t, sqliteRows(t, path, "SELECT n, s FROM books")), acked)
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.Start(t)
		acked := killMidStream(t, "-o", url+"?table=books", "--key", "n")
		requireAcked(t, dbNumbers(t, pgRows(t, url, "SELECT n, s FROM books")), acked)
	})
}

// completeMembers decodes the complete gzip members (zstd frames) of data,
// leaving out a torn one at its end.
func completeMembers(t *testing.T, name string, data []byte) string {
	t.Helper()
	var c content
	var err error
	if strings.HasSuffix(name, ".zst") {
		_, err = scanZstd(bytes.NewReader(data), int64(len(data)), &c)
	} else {
		_, err = scanGzip(bytes.NewReader(data), int64(len(data)), &c)
	}
	if err != nil || c.n > maxHead {
		t.Fatalf("%v (%d bytes)", err, c.n)
	}
	return string(c.head)
}

// dbNumbers checks rows "n|s" and returns their n.
func dbNumbers(t *testing.T, rows []string) []int {
	t.Helper()
	ns := make([]int, len(rows))
	for i, r := range rows {
		n, s, _ := strings.Cut(r, "|")
		v, err := strconv.Atoi(n)
		if err != nil || s != fmt.Sprintf("item, \"%d\"\nwith a line break", v) {
			t.Fatalf("row %q", r)
		}
		ns[i] = v
	}
	return ns
}

// killBatches SIGKILLs cexport writing batch files: every batch file there
// is whole (it got its name only once complete); the rerun completes the
// batch the kill left under its temporary name, and then every
// acknowledged item is in a batch file.
func killBatches(t *testing.T, ext string) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "items-%(batch_id)05d."+ext)
	args := []string{"-o", tmpl, "--batch-items", "700"}
	acked := killMidStream(t, args...)
	format := strings.Split(ext, ".")[0]
	read := func(name string) string {
		path := filepath.Join(dir, name)
		if strings.HasSuffix(name, ".gz") {
			return decompress(t, path)
		}
		b, _ := os.ReadFile(path)
		return string(b)
	}
	named := func() []string {
		var names []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				names = append(names, e.Name())
			}
		}
		return names
	}
	before := named()
	for _, name := range before {
		if n := len(itemNumbers(t, format, read(name))); n != 700 {
			t.Fatalf("%s, named before the kill: %d items, want 700", name, n)
		}
	}
	code, _, stderr := runCexport(t, "", args...)
	if code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	// The kill left a batch under its temporary name, which the rerun
	// completed, unless it held no item yet (then it is removed).
	after := named()
	if len(after) != len(before)+1 && len(after) != len(before) {
		t.Fatalf("the rerun named %d batch files, want at most the one the kill left (%s)", len(after)-len(before), stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(after) {
		t.Fatalf("a temporary file is left after the rerun: %d files, %d named", len(entries), len(after))
	}
	var all []int
	for _, name := range after {
		all = append(all, itemNumbers(t, format, read(name))...)
	}
	requireAcked(t, all, acked)
}
