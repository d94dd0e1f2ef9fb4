package cextract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// maxShellLine caps a line of the session read from a pipe.
const maxShellLine = 1 << 20

// runShell is --shell: load the page, then answer lines until the end of
// input or :quit. On a terminal (stdin and stdout both) lines are edited
// in place, with history (up and down) and completion (Tab: commands,
// file names after :rules and :fetch, the page's tags, .classes and
// #ids); otherwise lines are read plainly, nothing else is printed, and a
// line in error is reported on stderr with its number (exit 3 at the end).
func runShell(ctx context.Context, env *cli.Env, src string, fetchArgs []string) error {
	tool := env.Tool
	if src == "-" {
		return cli.Usagef("--shell: give a URL or a response record file (stdin reads the session's lines)")
	}
	s := &session{ctx: ctx, fetchArgs: fetchArgs, stderr: env.Stderr}
	if err := s.load(src); err != nil {
		return err
	}
	in := env.Stdin
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) && cli.IsTerminal(env.Stdout) {
		return s.interactive(f, env.Stdout)
	}
	s.out = env.Stdout
	num, bad := 0, false
	s.errf = func(format string, a ...any) {
		tool.Printf("<stdin>:%d: %s", num, fmt.Sprintf(format, a...))
		bad = true
	}
	// The lines are read as every input is (ndjson.Reader): a byte order
	// mark at the very start is skipped, as a selector file saved by a
	// Windows editor has it; a line over the cap is reported, and the
	// session goes on with the next.
	lines := ndjson.NewReader(nil, in)
	lines.MaxLine = maxShellLine
	for ctx.Err() == nil {
		line, err := lines.Next()
		if err == io.EOF {
			break
		}
		var le *ndjson.LineError
		if errors.As(err, &le) {
			num = le.Line.Num
			s.errf("%v", le.Err)
			continue
		}
		if err != nil {
			return err
		}
		num = line.Num
		if !s.line(string(line.Bytes)) {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if bad {
		return cli.Exit(cli.ExitPartial)
	}
	return nil
}

// interactive runs the session on a terminal, in raw mode for the line
// editor of golang.org/x/term (history, completion).
func (s *session) interactive(in *os.File, out io.Writer) error {
	fd := int(in.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return fmt.Errorf("terminal: %v", err)
	}
	defer func() { _ = term.Restore(fd, old) }()
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{in, out}, "cextract> ")
	if w, h, err := term.GetSize(fd); err == nil {
		_ = t.SetSize(w, h)
	}
	s.out = t
	s.errf = func(format string, a ...any) {
		fmt.Fprintf(t, "error: %s\n", fmt.Sprintf(format, a...))
	}
	c := newCompleter(s)
	t.AutoCompleteCallback = c.complete
	fmt.Fprintf(t, "%s\n:help for help, Ctrl-D to end\n", s.describe())
	for s.ctx.Err() == nil {
		line, err := t.ReadLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("terminal: %v", err)
		}
		if !s.line(line) {
			return nil
		}
	}
	return s.ctx.Err()
}
