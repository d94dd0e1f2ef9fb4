package cthrottle

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/throttle"
)

// run is the cthrottle command, its flags parsed into o.
func (o *Options) run(ctx context.Context, env *cli.Env) error {
	tool, files := env.Tool, env.Args
	keys, table, err := o.check(env)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, o)
	if err != nil {
		tool.Fail(err)
		return tool.Done(ctx)
	}
	defer store.Close()
	var rejects *ndjson.Writer
	if o.Rejects != "" {
		f, err := os.Create(o.Rejects)
		if err != nil {
			tool.Fail(fmt.Errorf("--rejects: %v", err))
			return tool.Done(ctx)
		}
		defer f.Close()
		rejects = ndjson.NewWriter(f)
	}
	out, err := env.Output()
	if err != nil {
		tool.Fail(err)
		return tool.Done(ctx)
	}
	tool.DrainOnInterrupt = env.DrainsOnInterrupt(files)
	p := newPipeline(o, tool, keys, table, store, ndjson.NewWriter(out), rejects)
	tool.Gauges = p.gauges
	tool.StartProgress(time.Second, func() string { return fmt.Sprintf("%d held", len(p.sem)) })
	p.run(ctx, ndjson.NewReader(files, env.Stdin))
	if rejects != nil {
		if err := rejects.Flush(); err != nil {
			tool.Fail(fmt.Errorf("write rejects: %v", err))
		}
	}
	if err := env.CloseOutput(); err != nil && !p.writeFailed {
		tool.Fail(err)
	}
	return tool.Done(ctx)
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
	s, err := throttle.Open(context.WithoutCancel(ctx), dsn, throttle.Options{BusyTimeout: o.BusyTimeout, Getenv: o.getenv})
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

// check completes and checks the options, as run needs them: the keyer
// and the table of rates (--rates FILE read). Its errors are usage errors.
func (o *Options) check(env *cli.Env) (*keyer, *throttle.Table, error) {
	o.getenv = env.Getenv
	if err := o.Validate(); err != nil {
		return nil, nil, cli.Usagef("%v", err)
	}
	keys, err := newKeyer(o.Key)
	if err != nil {
		return nil, nil, cli.Usagef("%v", err)
	}
	table := throttle.NewTable(o.rate)
	if o.RatesFile != "" {
		if table, err = readRates(o.RatesFile, o.rate, o.Key == ""); err != nil {
			return nil, nil, cli.Usagef("%v", err)
		}
	}
	return keys, table, nil
}
