//go:build unix

package cdedupe

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/pipetest"
)

// TestWriteToAGoneReader: a write (of a record passed through) that
// finds the reader gone fails the run (exit 1, said), unless the run was
// interrupted: then the reader going away is what the interrupt asked for
// (exit 130, nothing said).
func TestWriteToAGoneReader(t *testing.T) {
	pipetest.GoneReader(t, `{"kind":"item","data":{"a":1}}`+"\n", func(ctx context.Context, _ bool, stdin, stdout *os.File, stderr io.Writer) int {
		args := []string{"-q", "--db", filepath.Join(t.TempDir(), "seen.db")}
		return cli.Execute(ctx, Command(), args, cli.NewEnv(stdin, stdout, stderr))
	})
}
