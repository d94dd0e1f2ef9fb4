package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses, the same for every command.
const (
	ExitOK          = 0   // everything read was handled
	ExitFailure     = 1   // the command could not do its job (I/O error, …)
	ExitUsage       = 2   // bad flags or arguments
	ExitPartial     = 3   // finished, but some records were invalid or failed
	ExitInterrupted = 130 // stopped by SIGINT or SIGTERM
)

// ExitCodesHelp is the exit-status table printed by every --help.
const ExitCodesHelp = `Exit status:
  0    ok
  1    failure (cannot read input, write output, …)
  2    usage error
  3    finished, but some input records were invalid or failed
  130  interrupted (SIGINT/SIGTERM); a second signal exits at once`

// ErrInterrupted is the cause of a context cancelled by a signal.
var ErrInterrupted = errors.New("interrupted")

// RunFunc is the signature of every command's Run.
type RunFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Main runs run with the process's arguments and stdio and returns its exit
// status. The first SIGINT or SIGTERM cancels the context with ErrInterrupted
// (the command stops taking new work, finishes what is in flight and
// flushes); a second one exits at once with status 130. SIGPIPE is left
// alone, so a closed stdout (`| head`) ends the process quietly. With
// CRAWLUTILS_CPUPROFILE=FILE set, the run's CPU profile is written to FILE.
func Main(run RunFunc) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		cancel(ErrInterrupted)
		<-sig
		os.Exit(ExitInterrupted)
	}()
	stop := startProfile()
	defer stop()
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Interrupted reports whether ctx was cancelled by a signal.
func Interrupted(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrInterrupted)
}

// IsPipe reports whether r is a pipe or FIFO. Filters downstream of a
// pipeline keep reading after a signal when their input is a pipe: the
// producer got the same signal, drains its in-flight work and closes it.
func IsPipe(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeNamedPipe != 0
}
