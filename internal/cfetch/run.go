package cfetch

import (
	"context"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// run is the cfetch command, its flags parsed into c: it fetches the
// requests read from the named files or stdin and writes the responses to
// its output.
func (c *command) run(ctx context.Context, env *cli.Env) error {
	tool := env.Tool
	defer routeStdLog(tool)()
	if err := c.apply(); err != nil {
		return err
	}
	opts := &c.opts
	opts.Getenv = env.Getenv
	if opts.FromWARC {
		return c.runFromWARC(ctx, env)
	}
	out, err := env.Output()
	if err != nil {
		return err
	}
	f, err := NewFetcher(opts)
	if err != nil {
		return err
	}
	defer f.Close()
	defer setMemoryLimit(opts)()
	p := newPipeline(tool, f, opts, ndjson.NewWriter(out))
	tool.RateOut = true // responses, not the requests read ahead
	tool.Gauges = p.levels
	tool.StartProgress(time.Second, p.progress)
	p.run(ctx, ndjson.NewReader(env.Args, env.Stdin))
	if err := f.closeArchive(); err != nil {
		tool.Fail(err)
	}
	if err := env.CloseOutput(); err != nil {
		tool.Fail(err)
	}
	// Stats.Bytes means bytes downloaded for cfetch, not bytes read.
	tool.Stats.Bytes.Store(f.WireBytes())
	return tool.Done(ctx)
}
