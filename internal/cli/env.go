package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Env is what a command gets from the process it runs in, so that nothing
// below Main touches os.Std*, os.Getenv or os.Args: Main fills it from the
// process, a test from buffers and a map (NewEnv, WithEnv).
//
// A command's Run also finds here what Execute made of its arguments: Args
// (the operands left after the flags), Tool (its name, stats and error
// reporting) and Flags (the parsed flag set). The zero Getenv and Now
// read no environment and the real clock.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer // the raw stdout; write records through Output
	Stderr io.Writer
	// Getenv reads an environment variable; "" is unset. Every read of
	// the environment by the command (its flags' variables, the config
	// file's location, the store's) goes through it.
	Getenv func(string) string
	// Now is the clock of the command's logic (expiry, leases, rounds).
	Now func() time.Time

	// Args are the arguments left after the flags.
	Args []string
	// Tool is the running command (its name, stats, error reporting).
	Tool *Tool
	// Flags is the command's parsed flag set.
	Flags *Flags

	out *output
	// process: the command is the process's own (Main), not one run
	// inside another command (cqueue crawl's push): its -q then decides
	// how the process ends when its stdout's reader has gone (outputGone).
	process bool
}

// OwnProcess reports whether the command is the process's own (Main),
// rather than one run inside another command's process (cqueue crawl's
// pop and push) or by a test: only the process's own command decides
// what is the process's (its signals, how it ends).
func (e *Env) OwnProcess() bool { return e.process }

// NewEnv returns an Env over the given stdio that reads no environment
// variable (so no C<TOOL>_* variable and no user config file reach the
// command) and the real clock: what an in-process test wants.
func NewEnv(stdin io.Reader, stdout, stderr io.Writer) *Env {
	return &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr}
}

// WithEnv returns e reading its environment from vars (a test's
// variables) instead.
func (e *Env) WithEnv(vars map[string]string) *Env {
	e.Getenv = func(k string) string { return vars[k] }
	return e
}

// OSEnv returns the Env of the process: its stdio, its environment and
// the real clock.
func OSEnv() *Env {
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now}
}

// getenv is e.Getenv, or no environment.
func (e *Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// now is e.Now, or the real clock.
func (e *Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// Output returns where the command writes its records: the file -o names
// (created or truncated, opened at the first call) or stdout. Every
// command and subcommand opens it here, so -o means the same in each;
// errors name the file. Execute syncs and closes the file when Run
// returns, unless CloseOutput did already.
func (e *Env) Output() (io.Writer, error) {
	if e.out != nil {
		return e.out.w, e.out.err
	}
	e.out = &output{w: e.Stdout}
	name := ""
	if e.Flags != nil {
		name = e.Flags.Output
	}
	if name == "" || name == "-" {
		return e.out.w, nil
	}
	e.out.name = name
	f, err := os.Create(name)
	if err != nil {
		e.out.w, e.out.err = nil, outputError(name, err)
		return nil, e.out.err
	}
	e.out.w, e.out.file = f, f
	return f, nil
}

// CloseOutput syncs (a regular file) and closes the -o file, if Output
// opened one; it is no error to call it again. A command calls it before
// its summary, so that a failure to write the file counts in its exit
// status and is reported before the summary.
func (e *Env) CloseOutput() error {
	if e.out == nil || e.out.file == nil {
		return nil
	}
	f := e.out.file
	e.out.file = nil
	// fsync only what can be synced: not /dev/null, a FIFO or a tty.
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
			f.Close()
			return outputError(e.out.name, err)
		}
	}
	if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return outputError(e.out.name, err)
	}
	return nil
}

// output is the state of Env.Output.
type output struct {
	w    io.Writer
	file *os.File // the -o file until closed
	name string
	err  error
}

// outputError names the -o file in err: "-o out.jsonl: permission denied".
func outputError(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("-o %s: %w", name, err)
}

// DrainsOnInterrupt is the one rule for reading on after a signal: a
// command whose only input is stdin (no file arguments, or only "-"),
// and stdin a pipe, keeps reading to the end of its input after a signal
// instead of stopping (set Tool.DrainOnInterrupt from it): the command
// before it got the same signal, finishes its in-flight work and closes
// the pipe, and what it still writes must not be lost.
func (e *Env) DrainsOnInterrupt(files []string) bool {
	for _, f := range files {
		if f != "-" {
			return false
		}
	}
	return IsPipe(e.Stdin)
}
