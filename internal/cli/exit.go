package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
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
// flushes); a second one runs the functions given to OnAbort and exits at
// once with status 130. DrainSignal (SIGUSR2, where there is one) does
// what the first SIGINT does but never counts as one: a program that runs
// the commands (cqueue crawl) sends it to stop them gracefully whether or
// not the terminal's Ctrl-C reached them too, and the user's next Ctrl-C
// is still their first. SIGPIPE is left alone, so a closed stdout
// (`| head`) ends the process quietly. With CRAWLUTILS_CPUPROFILE=FILE
// set, the run's CPU profile is written to FILE.
func Main(run RunFunc) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, append([]os.Signal{os.Interrupt, syscall.SIGTERM}, drainSignals...)...)
	go func() {
		interrupts := 0
		for s := range sig {
			cancel(ErrInterrupted)
			if isDrainSignal(s) {
				continue
			}
			if interrupts++; interrupts == 2 {
				runAbortHooks()
				os.Exit(ExitInterrupted)
			}
		}
	}()
	stop := startProfile()
	defer stop()
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// DrainSignal is the signal that stops a command gracefully, as a first
// SIGINT does, without counting toward the second that exits at once
// (nil where the system has no such signal). See Main.
var DrainSignal os.Signal = drainSignal

var (
	abortMu    sync.Mutex
	abortHooks = map[int]func(){}
	abortNext  int
)

// OnAbort registers fn to run when a second signal makes Main exit at
// once (a command that started processes kills them); the returned
// function unregisters it. fn must be quick and must not block.
func OnAbort(fn func()) (remove func()) {
	abortMu.Lock()
	defer abortMu.Unlock()
	id := abortNext
	abortNext++
	abortHooks[id] = fn
	return func() {
		abortMu.Lock()
		delete(abortHooks, id)
		abortMu.Unlock()
	}
}

func runAbortHooks() {
	abortMu.Lock()
	defer abortMu.Unlock()
	for _, fn := range abortHooks {
		fn()
	}
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
