package cfetch

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// Run is the cfetch command: it parses args, fetches the requests read from
// the named files or stdin, writes the responses to stdout (or -o FILE) and
// returns the exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	tool := cli.NewTool("cfetch", stderr)
	defer routeStdLog(tool)()
	opts, flags, files, code, done := parseFlags(tool, args, stdout)
	if done {
		return code
	}
	out, closeOut, err := flags.OpenOutput(stdout)
	if err != nil {
		tool.Fail(fmt.Errorf("open output: %w", err))
		return cli.ExitFailure
	}
	f, err := NewFetcher(&opts)
	if err != nil {
		tool.Fail(err)
		return cli.ExitFailure
	}
	defer f.Close()
	defer setMemoryLimit(&opts)()
	p := newPipeline(tool, f, &opts, ndjson.NewWriter(out))
	tool.RateOut = true // responses, not the requests read ahead
	tool.Gauges = p.levels
	tool.StartProgress(time.Second, p.progress)
	p.run(ctx, ndjson.NewReader(files, stdin))
	if err := closeOut(); err != nil {
		tool.Fail(fmt.Errorf("close output: %w", err))
	}
	// Stats.Bytes means bytes downloaded for cfetch, not bytes read.
	tool.Stats.Bytes.Store(f.WireBytes())
	return tool.Finish(ctx)
}
