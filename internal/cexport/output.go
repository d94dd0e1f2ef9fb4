package cexport

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// output is where the items go: the -o file, or stdout.
type output struct {
	// name is the file for messages, "stdout" without -o.
	name string
	// w is the destination; its errors name it ("write items.csv: …").
	w io.Writer
	// file is the -o file (nil for stdout); regular says whether fsync
	// means anything for it (not for a FIFO or /dev/stdout).
	file    *os.File
	regular bool
	// nonEmpty is true when appending to a file that already has data.
	nonEmpty bool
}

// openOutput opens the -o file (created, truncated unless appendMode), or
// wraps stdout. When appending to a file whose last record is unfinished (a
// crash mid-write), that record is cut off (see cutUnfinished).
func openOutput(path string, appendMode bool, format string, delim rune, stdout io.Writer) (*output, error) {
	if path == "" || path == "-" {
		return &output{name: "stdout", w: namedWriter{"stdout", stdout}}, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendMode {
		flags = os.O_RDWR | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o666)
	if err != nil {
		return nil, err
	}
	o := &output{name: path, w: namedWriter{path, f}, file: f}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	o.regular = st.Mode().IsRegular()
	if appendMode && o.regular && st.Size() > 0 {
		size, err := cutUnfinished(f, st.Size(), format, delim)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		o.nonEmpty = size > 0
	}
	return o, nil
}

// Sync makes what was written to the file durable (fsync). It does nothing
// for stdout and for files that are not regular files.
func (o *output) Sync() error {
	if o.file == nil || !o.regular {
		return nil
	}
	if err := o.file.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", o.name, unwrapPath(err))
	}
	return nil
}

// Close syncs and closes the file.
func (o *output) Close() error {
	if o.file == nil {
		return nil
	}
	err := o.Sync()
	if cerr := o.file.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", o.name, unwrapPath(cerr))
	}
	return err
}

// namedWriter names its destination in write errors: "write items.csv: no
// space left on device".
type namedWriter struct {
	name string
	w    io.Writer
}

func (n namedWriter) Write(p []byte) (int, error) {
	k, err := n.w.Write(p)
	if err != nil {
		err = fmt.Errorf("write %s: %w", n.name, unwrapPath(err))
	}
	return k, err
}

// unwrapPath drops an *fs.PathError's own "write /path" prefix.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
