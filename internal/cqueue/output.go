package cqueue

import (
	"errors"
	"io"
	"os"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// output is the stdout every subcommand writes to: the real one, or the
// file its -o names, opened by parse once the flags are known. So -o means
// the same in every subcommand, as in the other commands.
type output struct {
	w     io.Writer
	close func() error
}

func (o *output) Write(p []byte) (int, error) { return o.w.Write(p) }

// open points o at -o FILE, if the flags name one.
func (o *output) open(f *cli.Flags) error {
	w, closeFile, err := f.OpenOutput(o.w)
	if err != nil {
		return err
	}
	o.w, o.close = w, closeFile
	return nil
}

// finish syncs and closes the -o file, if any (a subcommand that closed
// it already, as pop does on an interrupt, is no error).
func (o *output) finish() error {
	if o.close == nil {
		return nil
	}
	c := o.close
	o.close = nil
	if err := c(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

// unwrap is the writer behind w: stdout or the -o file, with its Fd and
// Close, for a subcommand that needs them.
func unwrap(w io.Writer) io.Writer {
	if o, ok := w.(*output); ok {
		return o.w
	}
	return w
}
