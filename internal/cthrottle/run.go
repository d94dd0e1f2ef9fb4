package cthrottle

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/throttle"
)

// Run is the cthrottle command.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	tool := cli.NewTool("cthrottle", stderr)
	o, files, code, done := parseFlags(tool, args, stdout)
	if done {
		return code
	}
	keys, err := newKeyer(o.Key)
	if err != nil {
		return tool.Usage("%v", err)
	}
	table := throttle.NewTable(o.rate)
	if o.RatesFile != "" {
		if table, err = readRates(o.RatesFile, o.rate, o.Key == ""); err != nil {
			return tool.Usage("%v", err)
		}
	}
	store, err := openStore(ctx, o)
	if err != nil {
		tool.Fail(err)
		return tool.Finish(ctx)
	}
	defer store.Close()
	var rejects *ndjson.Writer
	if o.Rejects != "" {
		f, err := os.Create(o.Rejects)
		if err != nil {
			tool.Fail(fmt.Errorf("--rejects: %v", err))
			return tool.Finish(ctx)
		}
		defer f.Close()
		rejects = ndjson.NewWriter(f)
	}
	out, closeOut, err := o.flags.OpenOutput(stdout)
	if err != nil {
		tool.Fail(err)
		return tool.Finish(ctx)
	}
	tool.DrainOnInterrupt = len(files) == 0 && cli.IsPipe(stdin)
	p := newPipeline(o, tool, keys, table, store, ndjson.NewWriter(out), rejects)
	tool.Gauges = p.gauges
	tool.StartProgress(time.Second, func() string { return fmt.Sprintf("%d held", len(p.sem)) })
	p.run(ctx, ndjson.NewReader(files, stdin))
	if rejects != nil {
		if err := rejects.Flush(); err != nil {
			tool.Fail(fmt.Errorf("write rejects: %v", err))
		}
	}
	if err := closeOut(); err != nil && !p.writeFailed {
		tool.Fail(err)
	}
	return tool.Finish(ctx)
}

// readRates reads --rates FILE.
func readRates(path string, def throttle.Rate, hosts bool) (*throttle.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--rates: %v", err)
	}
	defer f.Close()
	return throttle.ReadTable(f, path, def, hosts)
}

// openStore opens the schedule: errors name the store and what is wrong.
func openStore(ctx context.Context, o *Options) (throttle.Store, error) {
	dsn, _ := o.dsn()
	if dsn == "" {
		return throttle.NewLocal(), nil
	}
	s, err := throttle.Open(context.WithoutCancel(ctx), dsn, throttle.Options{BusyTimeout: o.BusyTimeout})
	if err != nil {
		return nil, trimPrefix(err)
	}
	return s, nil
}

// trimPrefix drops the library's "throttle: " from an error: the tool's
// name is printed before it.
func trimPrefix(err error) error {
	if msg, ok := strings.CutPrefix(err.Error(), "throttle: "); ok {
		return fmt.Errorf("%s", msg)
	}
	return err
}
