package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Exit statuses, the same for every command.
const (
	ExitOK          = 0   // everything read was handled
	ExitFailure     = 1   // the command could not do its job (I/O error, …)
	ExitUsage       = 2   // bad flags or arguments
	ExitPartial     = 3   // finished, but some records were invalid or failed
	ExitInterrupted = 130 // stopped by SIGINT or SIGTERM
	// ExitReaderGone is the status of a command that completed a file of
	// its own after its stdout's reader went away (see Env.OnReaderGone):
	// 128+SIGPIPE, what a shell shows for a command SIGPIPE ended.
	ExitReaderGone = 141
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

// ErrKilled is the cause of the context of a command run inside another
// one's process (cqueue crawl's pop and push) that the other ends at once,
// as a kill -9 would end the command's own process: it stops without
// finishing what it holds, but gives back at once what a process's death
// would leave for others to reclaim.
var ErrKilled = errors.New("killed")

// Main runs cmd with the process's arguments, stdio and environment
// (Execute) and returns its exit
// status. The first SIGINT or SIGTERM cancels the context with ErrInterrupted
// (the command stops taking new work, finishes what is in flight and
// flushes); a second one runs the functions given to OnAbort and exits at
// once with status 130. DrainSignal (SIGUSR2, where there is one) does
// what the first SIGINT does but never counts as one: a program that runs
// the commands (cqueue crawl) sends it to stop them gracefully whether or
// not the terminal's Ctrl-C reached them too, and the user's next Ctrl-C
// is still their first. Until the first of them SIGPIPE is left alone,
// so a closed stdout (`| head`) ends the process quietly, and a stdout
// whose reader goes away while the command has nothing to write ends it
// too (outputGone); after it, the reader going away is what was asked
// for (readerMayLeave). With CRAWLUTILS_CPUPROFILE=FILE
// set, the run's CPU profile is written to FILE.
func Main(cmd *Command) int {
	return withProcess(func(ctx context.Context) int {
		env := OSEnv()
		env.process = true
		return Execute(ctx, cmd, os.Args[1:], env)
	})
}

// withProcess runs run with the process's signals, stdout watcher, GC
// tuning and profile set up (see Main).
func withProcess(run func(ctx context.Context) int) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, append([]os.Signal{os.Interrupt, syscall.SIGTERM}, drainSignals...)...)
	if supervisor() != 0 {
		// A tool of cqueue crawl's loop writes to the next tool, never to
		// a | head, and may see the interrupt after that tool has stopped
		// at it (interruptLag): see readerMayLeave.
		ignoreSIGPIPE()
	}
	go func() {
		interrupts := 0
		for s := range sig {
			readerMayLeave()
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
	defer watchSupervisor()()
	defer watchOutput(os.Stdout, outputWatchEvery, func() {
		if interruptedWithinLag(ctx) {
			return
		}
		if gone := readerGoneHook.Load(); gone != nil {
			(*gone)()
			return
		}
		outputGone()
	})()
	tuneGC()
	stop := startProfile()
	defer stop()
	return run(ctx)
}

// outputWatchEvery is how often Main checks that stdout still has a
// reader.
const outputWatchEvery = 200 * time.Millisecond

// outputGone ends the process when the reader of its stdout has gone: a
// later command of the pipeline died or exited. Nothing this command
// still does can reach anyone, and waiting for input would hang the
// pipeline when the commands before it are idle (a pop holding leases, a
// fetcher waiting on a slow page): exiting closes this command's stdin,
// so the command before it notices in turn, and the whole pipeline ends
// within seconds, its leases left to be reclaimed. It is what a write
// would do (EPIPE), only without waiting for something to write.
func outputGone() {
	if !quietStop.Load() || sayOutputGone.Load() {
		fmt.Fprintf(os.Stderr, "%s: stdout: the reader is gone (the next command of the pipeline exited); stopping\n", filepath.Base(os.Args[0]))
	}
	runAbortHooks()
	os.Exit(ExitFailure)
}

// readerGoneHook is what the stdout watcher calls instead of outputGone
// when the process's command has a file of its own to complete (see
// Env.OnReaderGone).
var readerGoneHook atomic.Pointer[func()]

// OnReaderGone is for a command whose work is a file of its own, stdout
// only passing records on (cexport -o FILE): the reader of its stdout
// going away (| head, the next command of the pipeline exited) must not
// end it before it has completed the file. From now on a write to that
// stdout fails with EPIPE instead of killing the process by SIGPIPE, and
// the stdout watcher calls gone (once, on a goroutine of its own) instead
// of ending the process: when the command has nothing to write, gone is
// how it hears of it. The command then stops reading, completes its file
// and ends with ExitReaderGone (Tool.ReaderGone), as SIGPIPE would have
// ended it; after an interrupt, the reader going is what the interrupt
// asked for (ReaderGoneOnInterrupt) and gone is not called. Only the
// process's own command (OwnProcess) changes how the process ends; for
// another, OnReaderGone does nothing.
func (e *Env) OnReaderGone(gone func()) {
	if !e.process {
		return
	}
	ignoreSIGPIPE()
	readerGoneHook.Store(&gone)
}

// processInterrupted is set at the process's first interrupt (or drain
// signal), before its context is cancelled: see readerMayLeave.
var processInterrupted atomic.Bool

// readerMayLeave is the one rule for a stdout whose reader goes away
// after an interrupt: the next command of the pipeline stopping is what
// was asked for (cfetch stops reading at the same signal; a shell's Ctrl-C
// ends jq or head at once). From then on the stdout watcher no longer
// ends the process, and a write to that stdout fails with EPIPE instead
// of killing the process by SIGPIPE (ReaderGoneOnInterrupt tells the
// command that it is no failure): the command finishes its drain and
// exits 130 by itself. Main runs it before it cancels the context, so
// nothing the command does once it sees the interrupt can die of SIGPIPE.
//
// The signal reaches every command of a pipeline at once, but a busy
// process may handle it after a quick neighbour has already stopped at it
// and exited: a reader found gone is its interrupt's doing if the
// interrupt comes within interruptLag. A tool of cqueue crawl's loop
// ignores SIGPIPE from its start, so that a write meanwhile fails
// rather than kills; the crawl reports the failure of a tool whose
// reader died without an interrupt from its exit status, as any other.
func readerMayLeave() {
	processInterrupted.Store(true)
	ignoreSIGPIPE()
}

// ReaderGoneOnInterrupt reports whether err, from writing the command's
// output, says that the output's reader has gone (EPIPE) after an
// interrupt: the next command of the pipeline stopping is what the
// interrupt asked for (see readerMayLeave). The command then stops
// writing, counts what it could not write as dropped "interrupted" and
// does not report it: it is no failure. Any other write error is one.
// When the command has not seen an interrupt yet, it waits for one up to
// interruptLag.
func ReaderGoneOnInterrupt(ctx context.Context, err error) bool {
	return errors.Is(err, syscall.EPIPE) && interruptedWithinLag(ctx)
}

// interruptLag is how much later than a neighbour of its pipeline a
// process may see an interrupt both got (see readerMayLeave): many times
// what a busy machine delays a process (a trace showed 13 ms), and short,
// as each command before a stage that died waits it once before it ends.
const interruptLag = 250 * time.Millisecond

// interruptedWithinLag reports whether the process (or the command, ctx)
// is interrupted, waiting for it up to interruptLag.
func interruptedWithinLag(ctx context.Context) bool {
	interrupted := func() bool { return processInterrupted.Load() || Interrupted(ctx) }
	if interrupted() {
		return true
	}
	t := time.NewTimer(interruptLag)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return interrupted()
}

// quietStop is set by the -q of the process's own command (Main; not by a
// command run inside it, nor by Check): a stdout whose reader has gone
// (| head) then ends the process without a word, as SIGPIPE would, unless
// the command called SayWhenOutputGone.
var quietStop, sayOutputGone atomic.Bool

// SayWhenOutputGone makes the end for a stdout whose reader has gone print
// its line even with -q: for a command whose stopping leaves work behind
// (cqueue pop's leases), so that a loop whose later stage died says why.
func SayWhenOutputGone() { sayOutputGone.Store(true) }

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
