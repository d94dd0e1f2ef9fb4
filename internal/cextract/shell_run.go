package cextract

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/crawlutils/crawlutils/internal/cli"
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
	br := bufio.NewReaderSize(in, 1<<16)
	for ctx.Err() == nil {
		line, err := readShellLine(br)
		if line != "" || err == nil {
			num++
			if !s.line(line) {
				break
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("<stdin>:%d: %v", num+1, err)
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

// readShellLine reads one line without its end, at most maxShellLine bytes.
func readShellLine(br *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		chunk, err := br.ReadSlice('\n')
		if b.Len()+len(chunk) > maxShellLine {
			return "", fmt.Errorf("line longer than %d bytes", maxShellLine)
		}
		b.Write(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return strings.TrimRight(b.String(), "\r\n"), err
	}
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
