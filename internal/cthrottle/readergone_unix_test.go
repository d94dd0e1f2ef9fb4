//go:build unix

package cthrottle

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/crawlutils/crawlutils/internal/pipetest"
)

// TestWriteToAGoneReader: a write that finds the reader gone fails the
// run (exit 1, said), unless the run was interrupted: then the reader
// going away is what the interrupt asked for (exit 130, nothing said).
func TestWriteToAGoneReader(t *testing.T) {
	pipetest.GoneReader(t, `{"kind":"item","data":{"a":1}}`+"\n", func(ctx context.Context, _ bool, stdin, stdout *os.File, stderr io.Writer) int {
		return execute(ctx, []string{"-q", "--local"}, stdin, stdout, stderr)
	})
}
