package cli

import (
	"errors"
	"fmt"
)

// ExitError is an error with the exit status it makes. A command's Run
// returns one (or wraps one: it is found with errors.As) to exit with a
// status other than 1; Err is printed as "name: <Err>", and a nil Err
// prints nothing (the command reported the problem as it happened).
type ExitError struct {
	Code int
	Err  error

	usage bool // made by Usagef: printed with a pointer to --help
}

// Error is Err's message, or "exit status N" for a silent ExitError.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *ExitError) Unwrap() error { return e.Err }

// Exit returns the error that makes the exit status code and prints
// nothing: nil for ExitOK.
func Exit(code int) error {
	if code == ExitOK {
		return nil
	}
	return &ExitError{Code: code}
}

// Usagef returns a usage error (exit status 2) in the flags or arguments:
// it is printed with a pointer to --help.
func Usagef(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...), usage: true}
}

// Errorf returns an error that makes the exit status code, printed as it
// is (a usage error found in what the arguments name, such as a rules
// file, is Errorf(ExitUsage, …): no pointer to --help).
func Errorf(code int, format string, a ...any) error {
	return &ExitError{Code: code, Err: fmt.Errorf(format, a...)}
}

// Partial returns err as a partial failure (exit status 3: the command
// finished, but some records were invalid or failed).
func Partial(err error) error {
	return &ExitError{Code: ExitPartial, Err: err}
}

// errStop ends a run with status 0 and nothing printed: --help, --version.
var errStop = &ExitError{Code: ExitOK}

// ExitCode is the exit status err makes: ExitOK for nil, the Code of the
// ExitError it holds, ExitInterrupted for ErrInterrupted, else ExitFailure.
func ExitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	case errors.Is(err, ErrInterrupted):
		return ExitInterrupted
	}
	var ue usageError
	if errors.As(err, &ue) && ue.UsageError() {
		return ExitUsage
	}
	return ExitFailure
}

// usageError is an error of another package that is the user's to fix in
// the command line or its environment (a bad Redis URL): exit status 2,
// printed as it is.
type usageError interface{ UsageError() bool }

// report is the one place a command's outcome becomes its exit status:
// it prints err (unless the command reported it already), "name: why",
// with a pointer to --help for a usage error (Usagef), and returns
// ExitCode(err).
func report(t *Tool, err error) int {
	code := ExitCode(err)
	if err == nil {
		return code
	}
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return code
	}
	t.Printf("%v", err)
	if ee != nil && ee.usage {
		t.Relay(fmt.Sprintf("Try '%s --help' for more information.", t.Name))
	}
	return code
}

// Report prints err as Execute does and returns its exit status, for a
// step of a command that reports a problem as it happens and passes the
// status on.
func (t *Tool) Report(err error) int {
	return report(t, err)
}
