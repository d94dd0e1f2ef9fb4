//go:build unix

package cexport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/pipetest"
)

// goneItem is item n of the tests of a reader gone, with a request after
// it (what cexport -o passes on to stdout).
func goneItem(n int) string {
	return fmt.Sprintf(`{"kind":"item","data":{"n":%d,"s":"item, \"%d\"\nwith a line break","tags":["a"]}}`+"\n"+
		`{"kind":"request","url":"http://example.com/%d"}`+"\n", n, n, n)
}

// readExport reads the export at path strictly, as its format's reader
// does (a compressed file to its end: every member complete), and returns
// its items' numbers.
func readExport(t *testing.T, path string) []int {
	t.Helper()
	base, comp := compressionOf(path)
	var data string
	if comp != "" {
		data = decompress(t, path)
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data = string(b)
	}
	return itemNumbers(t, strings.TrimPrefix(filepath.Ext(base), "."), data)
}

// TestReaderOfStdoutGone: cexport -o FILE | head -1, the real command in a
// real pipe. Once head has gone, cexport stops reading, completes FILE
// (the items it read, the JSON array or XML document closed, the gzip or
// zstd stream ended) and exits 141, as SIGPIPE would have; with -q
// without a word. It finds the reader gone by writing to it ("write": a
// request comes after head has gone) or, when it has nothing to write, by
// watching its stdout ("idle"). Its stdin stays open: it must not wait
// for its end.
func TestReaderOfStdoutGone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command")
	}
	for _, name := range []string{"items.json", "items.csv.gz", "items.jsonl.zst", "items.xml"} {
		for _, how := range []string{"write", "idle"} {
			t.Run(name+"/"+how, func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(t.TempDir(), name)
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				cexport := exec.Command("cexport", "-q", "-o", path) // on PATH: see TestMain
				cexport.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
				stdin, err := cexport.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
				var stderr strings.Builder
				cexport.Stdout, cexport.Stderr = w, &stderr
				head := exec.Command("head", "-1")
				var headOut strings.Builder
				head.Stdin, head.Stdout = r, &headOut
				if err := cexport.Start(); err != nil {
					t.Fatal(err)
				}
				defer cexport.Process.Kill()
				if err := head.Start(); err != nil {
					t.Fatal(err)
				}
				r.Close()
				w.Close()
				// Item 1 comes before the request head reads: it is read
				// before head goes.
				io.WriteString(stdin, goneItem(1))
				if err := head.Wait(); err != nil {
					t.Fatalf("head: %v", err)
				}
				if headOut.String() != `{"kind":"request","url":"http://example.com/1"}`+"\n" {
					t.Fatalf("head read %q", headOut.String())
				}
				if how == "write" {
					go func() {
						for n := 2; n <= 50; n++ {
							if _, err := io.WriteString(stdin, goneItem(n)); err != nil {
								return
							}
						}
					}()
				}
				exited := make(chan error, 1)
				go func() { exited <- cexport.Wait() }()
				select {
				case err = <-exited:
				case <-time.After(hangGuard):
					t.Fatalf("cexport still runs %s after its reader has gone; stderr:\n%s", hangGuard, &stderr)
				}
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitReaderGone {
					t.Errorf("cexport: %v (%v), want exit status %d; stderr:\n%s", err, cexport.ProcessState, cli.ExitReaderGone, &stderr)
				}
				if stderr.Len() > 0 {
					t.Errorf("with -q, stderr:\n%s", &stderr)
				}
				got := readExport(t, path)
				if len(got) == 0 {
					t.Fatalf("%s holds no item; item 1 was read before head went", name)
				}
				for i, n := range got {
					if n != i+1 {
						t.Fatalf("%s holds items %v; want 1, 2, … in order", name, got)
					}
				}
			})
		}
	}
}

// TestWriteToAGoneReader: in-process (a pipe that is not the process's
// stdout: no SIGPIPE), a request passed on to a stdout whose reader has
// gone ends the run with FILE complete, exit 141 said on stderr; after
// an interrupt, the reader going is what the interrupt asked for (exit
// 130, nothing said), and the export still gets every item.
func TestWriteToAGoneReader(t *testing.T) {
	t.Parallel()
	in := goneItem(1) + goneItem(2)
	for _, interrupted := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "items.json")
		stdin, stdout := pipetest.GonePipes(t, in)
		ctx, cancel := context.WithCancelCause(context.Background())
		if interrupted {
			cancel(cli.ErrInterrupted)
		}
		var stderr strings.Builder
		code := execute(ctx, []string{"-o", path}, stdin, stdout, &stderr)
		cancel(nil)
		switch {
		case interrupted && code != cli.ExitInterrupted:
			t.Errorf("interrupted: exit %d, want 130; stderr:\n%s", code, &stderr)
		case interrupted && strings.Contains(stderr.String(), "pipe"):
			t.Errorf("interrupted: the reader gone said:\n%s", &stderr)
		case !interrupted && code != cli.ExitReaderGone:
			t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitReaderGone, &stderr)
		case !interrupted && !strings.Contains(stderr.String(), "the reader is gone"):
			t.Errorf("the reader gone not said:\n%s", &stderr)
		}
		got := readExport(t, path)
		if len(got) == 0 || got[0] != 1 || (interrupted && len(got) != 2) {
			t.Errorf("interrupted %v: items %v", interrupted, got)
		}
	}
}
