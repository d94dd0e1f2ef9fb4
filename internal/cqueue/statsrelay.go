package cqueue

import (
	"context"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// statsRelayCommand is the relay behind the --stats-to of a command that
// links no database driver (cextract, see statspub.RelayOpener): it
// opens the store and writes the snapshots its stdin brings.
func statsRelayCommand() *cli.Command {
	var busy time.Duration
	return &cli.Command{
		Name: "stats-relay",
		Help: cli.Help{
			Usage:   "cqueue stats-relay [--busy-timeout D] STORE",
			Summary: "publish another tool's stats to STORE (run by cextract for --stats-to)",
			Description: `Reads one JSON line a round, {"now":…,"snapshots":[…]}, stores the
snapshots in STORE (the frontier's SQLite file or Redis URL) for cqueue serve, and
answers each line with one line: empty when stored, else the error. The first
line it writes says whether STORE opened. cextract starts it for --stats-to, so
that cextract links no database driver; it is not meant to be run by hand.`,
		},
		Flags: func(f *cli.Flags) {
			f.DurationVar(&busy, "busy-timeout", statspub.DefaultTimeout, "how long a write waits for the store's lock")
		},
		Run: func(ctx context.Context, env *cli.Env) error {
			tool := env.Tool
			tool.Quiet = true
			args := env.Args
			if len(args) != 1 {
				return cli.Usagef("stats-relay takes one STORE (got %d arguments)", len(args))
			}
			stdout, err := env.Output()
			if err != nil {
				return err
			}
			sink, openErr := toolstats.OpenSink(ctx, args[0], busy, env.Getenv)
			if openErr == nil {
				defer sink.Close()
			}
			if err := statspub.ServeRelay(context.WithoutCancel(ctx), env.Stdin, stdout, sink, openErr); err != nil {
				tool.Fail(err)
			}
			return tool.Done(ctx)
		},
	}
}
