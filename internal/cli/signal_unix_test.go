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
	"strings"
	"syscall"
	"testing"
	"time"
)

// signalChild is Main in a child process (the test binary re-executed):
// it says "draining" once interrupted, then waits for its stdin to close
// and exits 0 after saying "done". A second interrupt exits at once (130)
// after the abort hook says "abort".
func signalChild() {
	os.Exit(Main(&Command{
		Name:    "child",
		Rewrite: func([]string) []string { return nil }, // the test binary's flags
		Run: func(ctx context.Context, env *Env) error {
			stdout := env.Stdout
			OnAbort(func() { fmt.Fprintln(stdout, "abort") })
			fmt.Fprintln(stdout, "ready")
			<-ctx.Done()
			fmt.Fprintln(stdout, "draining")
			io.Copy(io.Discard, env.Stdin)
			fmt.Fprintln(stdout, "done")
			return nil
		},
	}))
}

func startSignalChild(t *testing.T) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainSignals$")
	cmd.Env = append(os.Environ(), "CLI_TEST_SIGNAL_CHILD=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	expectLine(t, sc, "ready")
	return cmd, stdin, sc
}

func expectLine(t *testing.T, sc *bufio.Scanner, want string) {
	t.Helper()
	if !sc.Scan() || sc.Text() != want {
		t.Fatalf("child said %q (%v), want %q", sc.Text(), sc.Err(), want)
	}
}

// TestMainSignals: the drain signal stops a command as a first SIGINT
// does, however often it comes, and never counts as one; the second
// SIGINT or SIGTERM runs the abort hooks and exits 130 at once.
func TestMainSignals(t *testing.T) {
	if os.Getenv("CLI_TEST_SIGNAL_CHILD") == "1" {
		signalChild()
	}
	t.Run("drain_signal_never_counts", func(t *testing.T) {
		cmd, stdin, sc := startSignalChild(t)
		cmd.Process.Signal(DrainSignal)
		expectLine(t, sc, "draining")
		cmd.Process.Signal(DrainSignal)
		cmd.Process.Signal(DrainSignal)
		cmd.Process.Signal(syscall.SIGINT) // the user's first
		time.Sleep(100 * time.Millisecond)
		stdin.Close()
		expectLine(t, sc, "done")
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exit: %v", err)
		}
	})
	t.Run("second_signal_aborts", func(t *testing.T) {
		cmd, _, sc := startSignalChild(t)
		cmd.Process.Signal(syscall.SIGTERM)
		expectLine(t, sc, "draining")
		cmd.Process.Signal(syscall.SIGINT)
		expectLine(t, sc, "abort")
		var ee *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
			t.Fatalf("exit %v, want 130", err)
		}
		if sc.Scan() && strings.TrimSpace(sc.Text()) != "" {
			t.Errorf("child went on: %q", sc.Text())
		}
	})
}
