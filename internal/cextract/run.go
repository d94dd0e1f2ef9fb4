package cextract

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// Run is the cextract command: args without the program name, and its
// stdio. It returns the exit status (see cli's Exit constants).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	tool := cli.NewTool("cextract", stderr)
	var o Options
	flags := newFlags(tool, &o)
	files, code, done := flags.Parse(args, stdout)
	if done {
		return code
	}
	o.Files = files
	x, err := o.compile()
	if err != nil {
		return tool.Usage("%v", err)
	}
	out, closeOut, err := flags.OpenOutput(stdout)
	if err != nil {
		tool.Fail(fmt.Errorf("output: %w", err))
		return cli.ExitFailure
	}
	// Reading a pipe alone, keep going after a signal: upstream got it too
	// and will finish its in-flight work and close the pipe.
	tool.DrainOnInterrupt = stdinOnly(files) && cli.IsPipe(stdin)
	w := ndjson.NewWriter(out)
	p := &processor{tool: tool, w: w, x: x}
	tool.StartProgress(time.Second, nil)
	flush := func() {
		if err := w.Flush(); err != nil {
			p.failWrite(err)
		}
	}
	for line, env := range tool.Records(ctx, ndjson.NewReader(files, stdin), flush) {
		if !p.handle(line, env) {
			break
		}
	}
	flush()
	if err := closeOut(); err != nil {
		tool.Fail(fmt.Errorf("output: %w", err))
	}
	return tool.Finish(ctx)
}

// stdinOnly reports whether the input is stdin alone.
func stdinOnly(files []string) bool {
	for _, f := range files {
		if f != "-" {
			return false
		}
	}
	return true
}
