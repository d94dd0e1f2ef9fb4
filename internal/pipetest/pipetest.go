//go:build unix

// Package pipetest helps the tools' tests with pipes whose reader has
// gone: the next command of a pipeline that stopped.
package pipetest

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// GonePipes returns an input that is a pipe holding in (a command reads
// it to its end after an interrupt) and an output whose reader has gone:
// a write to it fails with EPIPE (only stdout and stderr get SIGPIPE).
// Both are closed at the end of the test.
func GonePipes(t testing.TB, in string) (stdin, stdout *os.File) {
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

// WantGoneReader checks how a command whose output's reader had gone
// ended (its exit status and stderr): after an interrupt the reader going
// away is what the interrupt asked for (exit 130, nothing said); without
// one it is a failure (exit 1, the broken pipe said).
func WantGoneReader(t testing.TB, interrupted bool, code int, stderr string) {
	t.Helper()
	switch {
	case interrupted && (code != cli.ExitInterrupted || stderr != ""):
		t.Errorf("interrupted: exit %d, stderr %q; want 130 and nothing said", code, stderr)
	case !interrupted && (code != cli.ExitFailure || !strings.Contains(stderr, "broken pipe")):
		t.Errorf("exit %d, stderr %q; want 1 and the broken pipe said", code, stderr)
	}
}

// GoneReader runs a command twice on in, its output's reader gone: once
// not interrupted, once interrupted before it starts (its context
// cancelled with cli.ErrInterrupted, as its process's first Ctrl-C does),
// and checks each end with WantGoneReader. run runs the command with
// the context, input, output and stderr given, and returns its exit
// status.
func GoneReader(t *testing.T, in string, run func(ctx context.Context, interrupted bool, stdin, stdout *os.File, stderr io.Writer) int) {
	t.Helper()
	for _, interrupted := range []bool{false, true} {
		stdin, stdout := GonePipes(t, in)
		ctx, cancel := context.WithCancelCause(context.Background())
		if interrupted {
			cancel(cli.ErrInterrupted)
		}
		var stderr strings.Builder
		code := run(ctx, interrupted, stdin, stdout, &stderr)
		cancel(nil)
		WantGoneReader(t, interrupted, code, stderr.String())
	}
}
