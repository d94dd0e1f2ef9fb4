//go:build unix

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// outputGoneChild is Main in a child process: a command that waits on its
// stdin for ever, so only the stdout watcher can end it. With
// CLI_TEST_QUIET=1 it runs with -q.
func outputGoneChild() {
	os.Exit(Main(&Command{
		Name: "child",
		Rewrite: func([]string) []string { // the test binary's flags
			if os.Getenv("CLI_TEST_QUIET") == "1" {
				return []string{"-q"}
			}
			return nil
		},
		Run: func(ctx context.Context, env *Env) error {
			io.Copy(io.Discard, env.Stdin)
			return nil
		},
	}))
}

// TestOutputGone: a stdout whose reader has gone ends the command with
// status 1; with -q without a word (| head ends a pipeline quietly), else
// saying why.
func TestOutputGone(t *testing.T) {
	if os.Getenv("CLI_TEST_OUTPUT_GONE_CHILD") == "1" {
		outputGoneChild()
	}
	for _, tc := range []struct {
		quiet string
		say   bool
	}{{"1", false}, {"0", true}} {
		t.Run("quiet="+tc.quiet, func(t *testing.T) {
			t.Parallel()
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestOutputGone$")
			cmd.Env = append(os.Environ(), "CLI_TEST_OUTPUT_GONE_CHILD=1", "CLI_TEST_QUIET="+tc.quiet)
			stdin, _ := cmd.StdinPipe() // held open: the child never sees EOF
			defer stdin.Close()
			var stderr strings.Builder
			cmd.Stdout, cmd.Stderr = w, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			r.Close() // the reader goes
			var ee *exec.ExitError
			if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != ExitFailure {
				t.Fatalf("exit: %v, want status %d", err, ExitFailure)
			}
			said := strings.Contains(stderr.String(), "the reader is gone")
			if said != tc.say || (!tc.say && stderr.Len() > 0) {
				t.Errorf("stderr %q; want the reader-gone line: %v", stderr.String(), tc.say)
			}
		})
	}
}

// readerLeftChild is Main in a child process: a command that waits for
// an interrupt, then for its stdin to close, then writes to its stdout and
// says on stderr whether the write failed with EPIPE and what
// ReaderGoneOnInterrupt made of that. With CLI_TEST_NO_INTERRUPT=1 it
// waits for no interrupt and says only the first.
func readerLeftChild() {
	os.Exit(Main(&Command{
		Name:    "child",
		Rewrite: func([]string) []string { return []string{"-q"} }, // the test binary's flags
		Run: func(ctx context.Context, env *Env) error {
			fmt.Fprintln(env.Stderr, "ready")
			if os.Getenv("CLI_TEST_NO_INTERRUPT") != "1" {
				<-ctx.Done()
				fmt.Fprintln(env.Stderr, "draining")
			}
			io.Copy(io.Discard, env.Stdin)
			_, err := io.WriteString(env.Stdout, "late\n")
			fmt.Fprintf(env.Stderr, "EPIPE: %v\n", errors.Is(err, syscall.EPIPE))
			if os.Getenv("CLI_TEST_NO_INTERRUPT") != "1" {
				fmt.Fprintf(env.Stderr, "reader gone on interrupt: %v\n", ReaderGoneOnInterrupt(ctx, err))
			}
			return nil
		},
	}))
}

// startReaderLeftChild starts readerLeftChild with the environment env,
// its stdout a pipe whose reader the test closes with closeReader.
func startReaderLeftChild(t *testing.T, env ...string) (cmd *exec.Cmd, stdin io.Closer, sc *bufio.Scanner, closeReader func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd = exec.Command(os.Args[0], "-test.run=^TestReaderLeftOnInterrupt$")
	cmd.Env = append(append(os.Environ(), "CLI_TEST_READER_LEFT_CHILD=1"), env...)
	stdin, _ = cmd.StdinPipe()
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	w.Close()
	sc = bufio.NewScanner(stderr)
	expectLine(t, sc, "ready")
	return cmd, stdin, sc, func() { r.Close() }
}

// TestReaderLeftOnInterrupt: after an interrupt (or the drain signal),
// the reader of stdout going away is what was asked for: a write to it
// fails with EPIPE, which ReaderGoneOnInterrupt says is no failure,
// instead of killing the command by SIGPIPE before it has finished.
func TestReaderLeftOnInterrupt(t *testing.T) {
	if os.Getenv("CLI_TEST_READER_LEFT_CHILD") == "1" {
		readerLeftChild()
	}
	for _, tc := range []struct {
		name string
		sig  os.Signal
	}{{"sigint", syscall.SIGINT}, {"drain_signal", DrainSignal}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd, stdin, sc, closeReader := startReaderLeftChild(t)
			cmd.Process.Signal(tc.sig)
			expectLine(t, sc, "draining")
			closeReader() // the reader goes, as cfetch does at the same signal
			stdin.Close()
			expectLine(t, sc, "EPIPE: true")
			expectLine(t, sc, "reader gone on interrupt: true")
			if err := cmd.Wait(); err != nil {
				t.Fatalf("exit: %v", err)
			}
		})
	}
	// A tool of cqueue crawl's loop may find its reader gone before it
	// has seen the interrupt that made the reader go: its write fails
	// rather than kills it, so that it can wait for the interrupt
	// (TestReaderGoneOnInterruptWaitsForIt).
	t.Run("supervised_before_the_interrupt", func(t *testing.T) {
		t.Parallel()
		_, stdin, sc, closeReader := startReaderLeftChild(t, "CLI_TEST_NO_INTERRUPT=1", SupervisorEnv+"="+strconv.Itoa(os.Getpid()))
		closeReader()
		stdin.Close()
		expectLine(t, sc, "EPIPE: true")
	})
}

// TestReaderGoneOnInterruptWaitsForIt: a reader found gone is the
// interrupt's doing when the interrupt comes after it (the process saw it
// later than its neighbour did), within interruptLag; not otherwise, nor
// for another error.
func TestReaderGoneOnInterruptWaitsForIt(t *testing.T) {
	t.Parallel()
	epipe := &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}
	ctx, cancel := context.WithCancelCause(context.Background())
	got := make(chan bool)
	go func() { got <- ReaderGoneOnInterrupt(ctx, epipe) }()
	cancel(ErrInterrupted)
	if !<-got {
		t.Error("EPIPE, then the interrupt: not the interrupt's doing")
	}
	if ReaderGoneOnInterrupt(ctx, io.ErrShortWrite) {
		t.Error("another write error after the interrupt: the interrupt's doing")
	}
	if ReaderGoneOnInterrupt(context.Background(), epipe) {
		t.Error("EPIPE and no interrupt: the interrupt's doing")
	}
}
