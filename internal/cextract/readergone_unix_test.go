//go:build unix

package cextract

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// TestWriteToAGoneReader: a write (of a record passed through) that
// finds the reader gone fails the run (exit 1, said), unless the run was
// interrupted: then the reader going away is what the interrupt asked for
// (exit 130, nothing said).
func TestWriteToAGoneReader(t *testing.T) {
	for _, interrupted := range []bool{false, true} {
		stdin, stdout := gonePipes(t, `{"kind":"item","data":{"a":1}}`+"\n")
		ctx, cancel := context.WithCancelCause(context.Background())
		if interrupted {
			cancel(cli.ErrInterrupted)
		}
		var stderr strings.Builder
		args := []string{"-q", "-f", "title=h1"}
		code := execute(ctx, args, stdin, stdout, &stderr)
		cancel(nil)
		switch {
		case interrupted && (code != cli.ExitInterrupted || stderr.Len() > 0):
			t.Errorf("interrupted: exit %d, stderr %q; want 130 and nothing said", code, stderr.String())
		case !interrupted && (code != cli.ExitFailure || !strings.Contains(stderr.String(), "broken pipe")):
			t.Errorf("exit %d, stderr %q; want 1 and the broken pipe said", code, stderr.String())
		}
	}
}

// gonePipes returns an input that is a pipe holding in (a command reads
// it to its end after an interrupt) and an output whose reader has gone:
// a write fails with EPIPE (only stdout and stderr get SIGPIPE).
func gonePipes(t *testing.T, in string) (stdin, stdout *os.File) {
	t.Helper()
	stdin, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, in)
	w.Close()
	r, stdout, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { stdin.Close(); stdout.Close() })
	return stdin, stdout
}
