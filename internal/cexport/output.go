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
	// resumed is where the export appended to goes on (zero for a new one).
	resumed resumePoint
	// seal, for a JSON array or XML document in a regular file, writes its
	// closing after what was written so far (see sealedFile); nil otherwise.
	seal func(closing string) error
	// comp compresses what is written to the file (compress.go), or nil.
	comp *compressWriter
}

// openOutput opens the -o file, or wraps stdout. -o appends: a regular
// file that has data is read first, to go on after its last complete item
// (what follows it is cut off, see resume.go); warn reports a cut. -O
// truncates.
func openOutput(o *Options, stdout io.Writer, warn func(format string, a ...any)) (*output, error) {
	if !o.toFile() {
		return &output{name: "stdout", w: namedWriter{"stdout", stdout}}, nil
	}
	if o.compress != "" {
		return openCompressed(o, warn)
	}
	path := o.Output
	f, err := os.OpenFile(path, openFlags(o), 0o666)
	if err != nil {
		return nil, err
	}
	out := &output{name: path, file: f}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	out.regular = st.Mode().IsRegular()
	if out.regular && !o.Overwrite && st.Size() > 0 {
		if err := out.resume(o, st.Size(), warn); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var w io.Writer = f
	if out.regular && o.isDocument() {
		sf := &sealedFile{f: f, end: out.resumed.keep, sealed: out.resumed.closed}
		w = sf
		out.seal = func(closing string) error {
			if err := sf.seal(closing); err != nil {
				return fmt.Errorf("write %s: %w", path, unwrapPath(err))
			}
			return nil
		}
	}
	out.w = namedWriter{path, w}
	return out, nil
}

// openFlags opens the -o file for o: truncated (-O); else read and
// written, the line formats appending, a document written in place
// (sealedFile); a FIFO or a device only written.
func openFlags(o *Options) int {
	if o.Overwrite {
		return os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	if st, err := os.Stat(o.Output); err == nil && !st.Mode().IsRegular() {
		return os.O_WRONLY | os.O_APPEND
	}
	if o.isDocument() {
		return os.O_RDWR | os.O_CREATE
	}
	return os.O_RDWR | os.O_CREATE | os.O_APPEND
}

// resume finds where the export goes on in the file (of size bytes) and
// cuts off what follows its last complete item, unless that is the
// closing of a complete document.
func (out *output) resume(o *Options, size int64, warn func(format string, a ...any)) error {
	rp, err := findResumePoint(out.file, size, o)
	if err != nil {
		return err
	}
	if !rp.closed && rp.keep < size {
		unfinished := hasContent(out.file, rp.keep, size)
		if err := out.file.Truncate(rp.keep); err != nil {
			return fmt.Errorf("cut off the unfinished last item: %w", unwrapPath(err))
		}
		if unfinished {
			warn("%s: cut off the unfinished item at its end (%d bytes), left by a run that was stopped mid-write", out.name, size-rp.keep)
		}
	}
	out.resumed = rp
	return nil
}

// Flush pushes what the compressor holds to the file (within its open
// member); without compression there is nothing to do.
func (out *output) Flush() error {
	if out.comp == nil {
		return nil
	}
	if err := out.comp.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", out.name, unwrapPath(err))
	}
	return nil
}

// Sync makes what was written to the file durable: a compressed file's
// member is ended first, then the file is fsynced. The fsync is left out
// for stdout and for files that are not regular files.
func (out *output) Sync() error {
	if out.comp != nil {
		if err := out.comp.EndMember(); err != nil {
			return fmt.Errorf("write %s: %w", out.name, unwrapPath(err))
		}
	}
	if out.file == nil || !out.regular {
		return nil
	}
	if err := out.file.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", out.name, unwrapPath(err))
	}
	return nil
}

// Close syncs and closes the file.
func (out *output) Close() error {
	if out.file == nil {
		return nil
	}
	err := out.Sync()
	if cerr := out.file.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", out.name, unwrapPath(cerr))
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
