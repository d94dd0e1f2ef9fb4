package cqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// admin returns a subcommand that opens the frontier, does one thing and
// writes JSON records to its output: h its help, flags its own flags,
// check its usage check (a message, or ""), do the thing at now.
func admin(name string, h cli.Help, flags func(*cli.Flags), check func() string,
	do func(ctx context.Context, fr frontier.Frontier, w *ndjson.Writer, now time.Time) error) *cli.Command {
	var s Store
	return &cli.Command{
		Name: name,
		Help: h,
		Flags: func(f *cli.Flags) {
			s.AddFlags(f)
			if flags != nil {
				flags(f)
			}
		},
		Run: func(ctx context.Context, env *cli.Env) error {
			tool := env.Tool
			if err := noArgs(env); err != nil {
				return err
			}
			stdout, err := env.Output()
			if err != nil {
				return err
			}
			if check != nil {
				if msg := check(); msg != "" {
					return cli.Usagef("%s", msg)
				}
			}
			tool.Quiet = true // one answer, no summary
			fr, err := s.Open(ctx, env, false)
			if err != nil {
				return err
			}
			defer fr.Close()
			w := ndjson.NewWriter(stdout)
			if err := do(context.WithoutCancel(ctx), fr, w, env.Now()); err != nil {
				tool.Fail(err)
			}
			if err := w.Flush(); err != nil {
				tool.Fail(fmt.Errorf("write stdout: %w", err))
			}
			return tool.Done(ctx)
		},
	}
}

func writeJSON(w *ndjson.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.WriteLine(b)
}

func reclaimCommand() *cli.Command {
	var all bool
	return admin("reclaim", cli.Help{
		Usage:   "cqueue reclaim [--all] [flags]",
		Summary: "return requests whose lease expired, or whose consumer died, to the queue",
		Description: `Pop does this by itself; reclaim does it now and reports
{"kind":"reclaim","requeued":N,"abandoned":N,"dead_lettered":N,"dropped":N,"released":N}.
An expired lease (of a one-off pop) counts against the request: after three it is
dead-lettered, so a page that kills its worker is not retried forever. The
requests of a dead 'pop --follow' (its process gone from this machine, or no
heartbeat for 30s) are abandoned: back to the queue, no retry counted. With --all,
every request still in flight is then released too: handed back at once, not
counted against it. Use it when no pipeline is running and a dead consumer on
another machine has not been detected yet.`,
		Examples: `  cqueue reclaim --db crawl.db --all`,
	}, func(f *cli.Flags) {
		f.BoolVar(&all, "all", false, "reclaim every in-flight request, expired or not (no pipeline may be running)")
	}, nil, func(ctx context.Context, fr frontier.Frontier, w *ndjson.Writer, now time.Time) error {
		r, err := fr.Reclaim(ctx, now)
		if err != nil {
			return err
		}
		released := 0
		if all {
			var leases []string
			err := fr.Dump(ctx, func(e frontier.DumpEntry) error {
				if e.State == frontier.InFlight && e.Lease != "" {
					leases = append(leases, e.Lease)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if len(leases) > 0 {
				br, err := fr.Apply(ctx, frontier.Batch{Releases: leases}, now)
				if err != nil {
					return err
				}
				released = br.Released
			}
		}
		return writeJSON(w, map[string]any{"kind": "reclaim", "requeued": r.Requeued, "abandoned": r.Abandoned, "dead_lettered": r.DeadLettered, "dropped": r.Dropped, "released": released})
	})
}

func infoCommand() *cli.Command {
	var filter frontier.InfoFilter
	return admin("info", cli.Help{
		Usage:   "cqueue info [--appid ID] [--crawlid ID] [flags]",
		Summary: "what the frontier holds, per crawl and host (Scrapy Cluster's info action)",
		Description: `Writes one record: {"kind":"info","queued":…,"in_flight":…,"dead":…,"crawls":[…]},
each crawl with its state (active, stopped, expired), expires, total_pending,
in_flight, dead, high_priority, low_priority and per-domain counts, and for a
crawl run by cqueue crawl its round, round_state (running, complete or stopped) and
round_started_at. A crawl with a budget (cqueue crawl --max-pages, …, or the
request fields max_pages, …) has its limits and counts in "budget"; once one is
reached, its state is stopped and stop_reason says which ("max_pages reached
(1000)").`,
		Examples: `  cqueue info --db crawl.db | jq '.crawls[] | {crawlid, total_pending, in_flight}'`,
	}, func(f *cli.Flags) {
		f.StringVar(&filter.AppID, "appid", "", "only the crawls of this appid")
		f.StringVar(&filter.CrawlID, "crawlid", "", "only this crawl")
	}, nil, func(ctx context.Context, fr frontier.Frontier, w *ndjson.Writer, now time.Time) error {
		c, err := fr.Counts(ctx)
		if err != nil {
			return err
		}
		info, err := fr.Info(ctx, filter)
		if err != nil {
			return err
		}
		crawls, err := withRounds(ctx, fr, info.Crawls, now)
		if err != nil {
			return err
		}
		return writeJSON(w, struct {
			Kind string `json:"kind"`
			frontier.Counts
			frontier.Info
			Crawls []crawlInfoRound `json:"crawls"`
		}{"info", c, info, crawls})
	})
}

func stopCommand() *cli.Command {
	var crawlID string
	var purge bool
	return admin("stop", cli.Help{
		Usage:   "cqueue stop --crawlid ID [flags]",
		Summary: "purge a crawl's queued requests and refuse its later pushes",
		Description: `Writes {"kind":"stop","crawlid":ID,"purged":N}. Requests of the crawl in
flight finish when acked; their follow-ups are refused (reason "stopped").
A crawl run by 'cqueue crawl' keeps its queue instead ({"purged":0,"kept":true}):
its run ends gracefully within seconds (exit 5, "stopped"), and the next run
says how to resume it (--resume) or begin its next round over (--next-round);
with --purge it is purged as any crawl (its run then ends stopped, exit 5, and
the next run needs --next-round). A crawl the frontier does not know is
refused (exit 1): nothing is recorded.`,
		Examples: `  cqueue stop --db crawl.db --crawlid shop`,
	}, func(f *cli.Flags) {
		f.StringVar(&crawlID, "crawlid", "", "the crawl to stop (required)")
		f.BoolVar(&purge, "purge", false, "purge the queue of a crawl run by cqueue crawl too, as any crawl's")
	}, func() string {
		if crawlID == "" {
			return "--crawlid is required"
		}
		return ""
	}, func(ctx context.Context, fr frontier.Frontier, w *ndjson.Writer, now time.Time) error {
		known, err := frontier.CrawlKnown(ctx, fr, crawlID)
		if err != nil {
			return err
		}
		if !known {
			// A mistyped name would otherwise record a stop no crawl
			// ever meets, and leave the crawl meant running.
			return cli.Errorf(cli.ExitFailure, "no crawl %q in this frontier (cqueue info lists its crawls): nothing stopped", crawlID)
		}
		var n int
		var kept bool
		if purge {
			n, err = fr.Stop(ctx, crawlID, now)
		} else {
			n, kept, err = frontier.StopCrawl(ctx, fr, crawlID, now)
		}
		if err != nil {
			return err
		}
		if kept {
			return writeJSON(w, map[string]any{"kind": "stop", "crawlid": crawlID, "purged": 0, "kept": true})
		}
		return writeJSON(w, map[string]any{"kind": "stop", "crawlid": crawlID, "purged": n})
	})
}

func expireCommand() *cli.Command {
	return admin("expire", cli.Help{
		Usage:   "cqueue expire [flags]",
		Summary: "purge crawls past their expires",
		Description: `Purges the crawls whose expires has passed and writes one record per crawl
expired since the last call: {"kind":"expired","crawlid":…,"appid":…,"expires":…,"purged":N}.`,
		Examples: `  cqueue expire --db crawl.db | jq -r .crawlid`,
	}, nil, nil, func(ctx context.Context, fr frontier.Frontier, w *ndjson.Writer, now time.Time) error {
		es, err := fr.Expire(ctx, now)
		if err != nil {
			return err
		}
		for _, e := range es {
			if err := writeJSON(w, expiredRecord{"expired", e}); err != nil {
				return err
			}
		}
		return nil
	})
}

func statsCommand() *cli.Command {
	return admin("stats", cli.Help{
		Usage:   "cqueue stats [flags]",
		Summary: "the frontier's lifetime counters",
		Description: `Writes {"kind":"stats","queued":…,"in_flight":…,"dead":…,"counters":{…}}:
pushed, popped, acked, ack_unknown, requeued, dead_lettered, dropped,
purged_stopped, purged_expired and refused_<reason>.`,
		Examples: `  cqueue stats --db crawl.db | jq .counters`,
	}, nil, nil, func(ctx context.Context, fr frontier.Frontier, w *ndjson.Writer, now time.Time) error {
		c, err := fr.Counts(ctx)
		if err != nil {
			return err
		}
		m, err := fr.Stats(ctx)
		if err != nil {
			return err
		}
		return writeJSON(w, struct {
			Kind string `json:"kind"`
			frontier.Counts
			Counters map[string]int64 `json:"counters"`
		}{"stats", c, m})
	})
}

func dumpCommand() *cli.Command {
	return admin("dump", cli.Help{
		Usage:   "cqueue dump [flags]",
		Summary: "every request the frontier holds, as NDJSON",
		Description: `Writes each queued, in-flight and dead request as a request record with a
"frontier" object: state, priority, expiries, and the lease deadline (in flight)
or the reason (dead). 'cqueue push' reads a dump back (the lease is dropped).`,
		Examples: `  cqueue dump --db crawl.db | jq -c 'select(.frontier.state == "dead")'
  cqueue dump --db old.db | cqueue push --db new.db`,
	}, nil, nil, func(ctx context.Context, fr frontier.Frontier, w *ndjson.Writer, now time.Time) error {
		return fr.Dump(ctx, func(d frontier.DumpEntry) error { return w.WriteLine(d.Record()) })
	})
}
