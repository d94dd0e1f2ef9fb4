//go:build unix

package cexport

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputToAFIFO: -o to a FIFO (or /dev/fd/3 in a pipeline) only writes
// it: nothing is read back, and a JSON array is closed at the end.
func TestOutputToAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "items.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	if code, stderr := runExport(t, []string{"-o", path}, lines(resumeItems...)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b := wait(t, got, "the FIFO's reader")
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil || len(items) != len(resumeItems) {
		t.Fatalf("not an array of %d items (%v):\n%s", len(resumeItems), err, b)
	}
}
