package crawl

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// echoCommand copies its stdin to its stdout, reading on after a drain
// (as push does: its input is a pipe), and exits 130 when drained.
func echoCommand() *cli.Command {
	return &cli.Command{
		Name: "echo",
		Help: cli.Help{Usage: "echo", Summary: "echo"},
		Run: func(ctx context.Context, env *cli.Env) error {
			env.Tool.DrainOnInterrupt = env.DrainsOnInterrupt(nil)
			if _, err := io.Copy(env.Stdout, env.Stdin); err != nil {
				return err
			}
			return env.Tool.Done(ctx)
		},
	}
}

// TestInProc: a stage run in this process reads its pipe to the end and
// exits as its process would; drained, it reads on to the end of its
// input and exits 130; killed, its input is closed under it and it ends;
// the pipe ends it was given are closed when it ends.
func TestInProc(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, then func(p *inProc, w *os.File)) (int, string) {
		t.Helper()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		er, ew, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		p := &inProc{cmd: echoCommand(), args: []string{"-q"}, env: func(string) string { return "" },
			stdin: r, stdout: &out, stderr: ew}
		p.own(r)
		p.own(ew)
		p.start()
		then(p, w)
		code := p.wait()
		w.Close()
		// The stderr pipe's write end was closed when the command ended.
		if _, err := io.ReadAll(bufio.NewReader(er)); err != nil {
			t.Errorf("stderr: %v", err)
		}
		er.Close()
		return code, out.String()
	}
	t.Run("to the end", func(t *testing.T) {
		t.Parallel()
		code, out := run(t, func(p *inProc, w *os.File) {
			io.WriteString(w, "a\nb\n")
			w.Close()
		})
		if code != cli.ExitOK || out != "a\nb\n" {
			t.Errorf("exit %d, out %q; want 0, a b", code, out)
		}
	})
	t.Run("drained", func(t *testing.T) {
		t.Parallel()
		code, out := run(t, func(p *inProc, w *os.File) {
			io.WriteString(w, "a\n")
			p.drain()
			io.WriteString(w, "b\n") // read on: nothing lost
			w.Close()
		})
		if code != cli.ExitInterrupted || out != "a\nb\n" {
			t.Errorf("exit %d, out %q; want 130, a b", code, out)
		}
	})
	t.Run("killed", func(t *testing.T) {
		t.Parallel()
		code, _ := run(t, func(p *inProc, w *os.File) {
			p.kill() // the writer is still open: only the kill ends it
		})
		if code == cli.ExitOK {
			t.Errorf("exit 0 after a kill")
		}
	})
}
