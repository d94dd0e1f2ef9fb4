package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatsEvery: with --stats-every the stats file is rewritten while the
// command runs, gauges included, and a reader always finds a whole
// document; Finish writes the last one.
func TestStatsEvery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	tool := NewTool("ctest", new(bytes.Buffer))
	f := tool.NewFlags(Help{})
	if _, code, done := f.Parse([]string{"--stats", path, "--stats-every", "5ms"}, new(bytes.Buffer)); done {
		t.Fatalf("Parse: %d", code)
	}
	var level int64 = 7
	tool.Gauges = func() map[string]int64 { return map[string]int64{"in_flight": level} }
	tool.StartProgress(time.Hour, nil)
	tool.Stats.In.Add(3)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			var s StatsJSON
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatalf("a reader found half a document: %v\n%s", err, b)
			}
			if s.In == 3 && s.Gauges["in_flight"] == 7 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stats file was not rewritten while the command ran (%v)", err)
		}
		time.Sleep(time.Millisecond)
	}
	if code := tool.Finish(context.Background()); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	level = 0 // read by Finish only: the writer has stopped
	var s StatsJSON
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &s); err != nil || s.Gauges["in_flight"] != 7 {
		t.Fatalf("final stats %s (%v)", b, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestStatsEveryNegative(t *testing.T) {
	var stderr bytes.Buffer
	f := NewTool("ctest", &stderr).NewFlags(Help{})
	if _, code, done := f.Parse([]string{"--stats-every", "-1s"}, new(bytes.Buffer)); !done || code != ExitUsage || !strings.Contains(stderr.String(), "--stats-every -1s: must not be negative") {
		t.Fatalf("done=%v code=%d stderr=%q", done, code, stderr.String())
	}
}

// TestWriteFileAtomic: a regular file is replaced, a symbolic link keeps
// pointing at its (replaced) target, and a device is written to, never
// replaced.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if err := WriteFileAtomic(os.DevNull, []byte("x")); err != nil {
		t.Fatalf("%s: %v", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("%s was replaced by a file", os.DevNull)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "new.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
}
