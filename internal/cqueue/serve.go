package cqueue

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/monitor"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// serveCmd is a run of cqueue serve, the crawl monitor (internal/monitor)
// over the frontier the flags name: its flags.
type serveCmd struct {
	s Store
	o monitor.Options
}

func serveCommand() *cli.Command {
	c := &serveCmd{o: monitor.Options{Listen: "127.0.0.1:8077"}}
	return &cli.Command{Name: "serve", Help: serveHelp, Flags: c.define, Run: c.run}
}

var serveHelp = cli.Help{
	Usage:   "cqueue serve [--listen HOST:PORT] [--allow-control --token T] [flags]",
	Summary: "watch, and control, the frontier's crawls over HTTP: a JSON API and a page",
	Description: `Serves a JSON API under /api/v1/ and an HTML page at / that shows every crawl
of the frontier: queued, in flight and dead requests, per host, pages/s,
items/s, errors/s, HTTP errors/s and dead/s over time, the workers (pop
--follow consumers) and their heartbeats, the dead letters with their reasons,
and the tools attached to each crawl with their last stats (which cqueue crawl
publishes to the frontier, or each tool given --stats-to). It samples the
frontier every --sample (read-only calls: the crawl loop gets one more reader,
however many pages watch) and keeps every sample for --history, then one a
minute for a day. It sees every pipeline sharing the frontier, on every
machine.

With --allow-control and --token, a request carrying "Authorization: Bearer T"
may stop a crawl, pause or resume it, and expire crawls, as cqueue stop and
cqueue expire do. It listens on 127.0.0.1 by default; any other address needs
--token, which every API request must then carry. Runs until interrupted (130).
See docs/monitor.md.`,
	Examples: `  # read-only, then open http://127.0.0.1:8077/
  cqueue serve --db crawl.db

  # with the actions: a token, from the environment rather than the command line (ps shows it)
  export CQUEUE_SERVE_TOKEN=$(openssl rand -hex 16)
  cqueue serve --db crawl.db --allow-control

  # the shared Redis frontier of pipelines on several machines, watched from anywhere:
  # every request needs the token
  export CQUEUE_SERVE_TOKEN=$(openssl rand -hex 16)
  cqueue serve --redis redis://10.0.0.5:6379/0 --listen 0.0.0.0:8077`,
}

func (c *serveCmd) define(f *cli.Flags) {
	c.s.AddFlags(f)
	f.StringVar(&c.o.Listen, "listen", c.o.Listen, "serve on `HOST:PORT` (a non-loopback host needs --token)")
	f.StringVar(&c.o.Token, "token", "", "the bearer `TOKEN` actions (and, off loopback, every API request) must carry (or $CQUEUE_SERVE_TOKEN)")
	f.BoolVar(&c.o.AllowControl, "allow-control", false, "allow the actions: stop, pause, resume, expire (needs --token)")
	f.DurationVar(&c.o.Interval, "sample", time.Second, "sample the frontier every `DURATION`")
	f.DurationVar(&c.o.History, "history", time.Hour, "keep every sample for `DURATION` (then one point a minute for 24h)")
}

func (c *serveCmd) run(ctx context.Context, env *cli.Env) error {
	tool, s, o := env.Tool, &c.s, c.o
	if err := noArgs(env); err != nil {
		return err
	}
	if _, err := env.Output(); err != nil {
		return err
	}
	switch {
	case o.Interval < 10*time.Millisecond:
		return cli.Usagef("--sample %s: must be at least 10ms", o.Interval)
	case o.History < o.Interval:
		return cli.Usagef("--history %s: must be at least --sample (%s)", o.History, o.Interval)
	case o.History/o.Interval > 1_000_000:
		return cli.Usagef("--history %s: at most a million samples (%s at --sample %s)", o.History, o.Interval*1_000_000, o.Interval)
	}
	if err := monitor.CheckOptions(o.Listen, o.Token, o.AllowControl); err != nil {
		return cli.Usagef("%v", err)
	}
	quiet := tool.Quiet
	tool.Quiet = true // no records in or out: no summary
	fr, err := s.Open(ctx, env, false)
	if err != nil {
		return err
	}
	defer fr.Close()
	dsn, _ := s.DSN(env.Getenv)
	o.Frontier, o.Store = fr, "sqlite"
	if storeurl.IsRedisURL(dsn) {
		o.Store = "redis"
	}
	tools, err := toolstats.Open(ctx, dsn, toolstats.Options{BusyTimeout: s.BusyTimeout, Prefix: s.Opts.Prefix, Getenv: env.Getenv})
	if err != nil {
		return fmt.Errorf("the tools' stats: %v", err)
	}
	defer tools.Close()
	o.Tools = tools
	o.ConsumerTimeout = s.Opts.ConsumerTimeout
	o.Warn = func(msg string) { tool.Printf("%s", msg) }
	srv, err := monitor.New(o)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		tool.Fail(fmt.Errorf("listen: %w", err))
		return tool.Done(ctx)
	}
	if !quiet {
		mode := "read-only"
		if o.AllowControl {
			mode = "control allowed with the token"
		}
		tool.Printf("serving the crawl monitor on http://%s/ (%s)", ln.Addr(), mode)
	}
	if err := srv.Serve(ctx, ln); err != nil {
		tool.Fail(err)
	}
	return tool.Done(ctx)
}
