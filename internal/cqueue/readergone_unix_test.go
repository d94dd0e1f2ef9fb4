//go:build unix

package cqueue

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/pipetest"
)

// TestPushWriteToAGoneReader: a write of cqueue push (of a record passed
// through) that finds the reader gone fails the run (exit 1, said),
// unless the run was interrupted: then the reader going away is what the
// interrupt asked for (exit 130, nothing said), and the requests read
// after it are still queued.
func TestPushWriteToAGoneReader(t *testing.T) {
	in := `{"kind":"item","data":{"a":1}}` + "\nhttps://a.example/\n"
	pipetest.GoneReader(t, in, func(ctx context.Context, interrupted bool, stdin, stdout *os.File, stderr io.Writer) int {
		db := filepath.Join(t.TempDir(), "q.db")
		code := execute(ctx, []string{"push", "-q", "--db", db}, stdin, stdout, stderr)
		if interrupted {
			var info strings.Builder
			if code := execute(context.Background(), []string{"info", "--db", db}, nil, &info, io.Discard); code != 0 || !strings.Contains(info.String(), `"queued":1,`) {
				t.Errorf("interrupted: info (exit %d) %s; want the request queued", code, info.String())
			}
		}
		return code
	})
}
