package cqueue

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// Command returns the cqueue command and its subcommands, for cli.Main or
// cli.Execute, with more subcommands first: cmd/cqueue gives it cqueue
// crawl (internal/crawl, which drives a loop of this command's pop and
// push). Each subcommand takes its settings from its own environment
// variables and config section (CQUEUE_PUSH_BATCH, cqueue: {push: …}).
func Command(more ...*cli.Command) *cli.Command {
	return &cli.Command{
		Name:      "cqueue",
		HelpText:  topHelp,
		OpenStats: toolstats.OpenSink,
		Subcommands: append(more,
			pushCommand(), popCommand(), reclaimCommand(), infoCommand(),
			stopCommand(), expireCommand(), statsCommand(), dumpCommand(), serveCommand(), statsRelayCommand(),
		),
	}
}

const topHelp = `cqueue - the crawl's frontier: a crash-safe priority queue of requests with leases

Usage: cqueue SUBCOMMAND [flags]

Subcommands:
  crawl     run a whole crawl: push the seeds, run the crawl loop below to its end, account for it
  push      queue requests (records or bare URLs) and settle acks, applying crawl policy and dedupe
  pop       hand out requests, each leased until its ack comes back; --follow until the crawl ends
  reclaim   return requests whose lease expired (--all: every in-flight request) to the queue
  info      per crawl and host: pending, in flight, dead, priorities, expiry (Scrapy Cluster's info)
  stop      purge a crawl's queued requests and refuse its later pushes
  expire    purge crawls past their expires, one "expired" record per crawl
  stats     the frontier's lifetime counters, as JSON
  dump      every request the frontier holds, as NDJSON
  serve     watch the crawls over HTTP (JSON API and a page); stop, pause, expire with a token

The state is an SQLite file (--db FILE, or $CRAWLUTILS_DB) or a Redis server
(--redis URL, or $CRAWLUTILS_REDIS). push creates the file; the other
subcommands fail (1) when it does not exist. 'cqueue SUBCOMMAND --help' for
each one's flags.

The crawl loop, run by 'cqueue crawl seeds.txt shop.yml items.csv':
  cqueue push --db crawl.db --crawlid shop --appid demo https://shop.example/
  cqueue pop --db crawl.db --follow | cfetch | cextract -r shop.yml |
      cexport -o items.csv | cqueue push --db crawl.db

` + cli.ExitCodesHelp + "\n"

// Store holds the flags every subcommand shares (where the frontier is)
// and those of how requests are queued; cqueue crawl has them too.
type Store struct {
	DB          string
	Redis       string
	BusyTimeout time.Duration
	Opts        frontier.Options
	ScrapyKeys  bool
	Refresh     time.Duration // cqueue push --refresh
}

// AddFlags defines --db, --redis and --busy-timeout.
func (s *Store) AddFlags(f *cli.Flags) {
	f.StringVar(&s.DB, "db", "", "the frontier's SQLite `FILE` (default $CRAWLUTILS_DB)")
	f.StringVar(&s.Redis, "redis", "", "the frontier's Redis `URL`, redis://host:port/db, or a Redis Cluster: redis+cluster://h1:port,h2:port (default $CRAWLUTILS_REDIS)")
	f.DurationVar(&s.BusyTimeout, "busy-timeout", 0, "how long to wait for another process's write lock on the SQLite file (default 5s)")
}

// AddQueueFlags adds the settings applied when requests are queued; every
// process sharing a frontier must use the same.
func (s *Store) AddQueueFlags(f *cli.Flags) {
	f.BoolVar(&s.ScrapyKeys, "scrapy-fingerprints", false, "dedupe with Scrapy's SHA-1 request fingerprints (exportable with cdedupe --export-seen) instead of the faster 64-bit key")
	f.DurationVar(&s.Opts.DedupeTTL, "dedupe-ttl", 0, "forget a crawl's seen requests after it has been idle this long (Scrapy Cluster's DUPEFILTER_TIMEOUT); 0: never")
	f.Func("order", "order within a priority: fifo or lifo (SCHEDULER_DISK_QUEUE) (default fifo)", func(v string) error {
		switch strings.ToLower(v) {
		case "fifo":
			s.Opts.Order = frontier.FIFO
		case "lifo":
			s.Opts.Order = frontier.LIFO
		default:
			return fmt.Errorf("want fifo or lifo")
		}
		return nil
	})
	f.DurationVar(&s.Refresh, "refresh", 0, "in a new round of a crawl, do not fetch again a URL seen in a round begun less than `D` ago (Scrapy Cluster's dupefilter expiry, scrapy-deltafetch); 0: fetch every page again each round")
	f.IntVar(&s.Opts.DepthPriority, "depth-priority", 0, "queue at priority - depth*N (DEPTH_PRIORITY): positive is breadth-first, negative with --order lifo depth-first")
}

// KeyMode is the duplicate filter's key (--scrapy-fingerprints).
func (s *Store) KeyMode() frontier.KeyMode {
	if s.ScrapyKeys {
		return frontier.KeyScrapy
	}
	return frontier.KeyFast
}

// DSN picks the frontier: --redis, --db, then the environment getenv
// reads (see cli.StoreDSN).
func (s *Store) DSN(getenv func(string) string) (string, error) {
	dsn, err := cli.StoreDSN(s.DB, s.Redis, getenv)
	if err == nil && dsn == "" {
		err = ErrNoFrontier
	}
	return dsn, err
}

// ErrNoFrontier is DSN's error when no flag or variable names a frontier.
var ErrNoFrontier = errors.New("no frontier: give --db FILE or --redis URL (or set CRAWLUTILS_DB)")

// Open opens the frontier the flags (or env's variables) name. Only push
// creates an SQLite file (create): the other subcommands refuse one that
// does not exist, so a mistyped --db is an error, not an empty frontier
// (and a loop on it does not "finish" at once).
func (s *Store) Open(ctx context.Context, env *cli.Env, create bool) (frontier.Frontier, error) {
	dsn, err := s.DSN(env.Getenv)
	if err != nil {
		return nil, cli.Usagef("%v", err)
	}
	s.Opts.Getenv = env.Getenv
	return s.OpenAt(ctx, dsn, create)
}

// OpenAt opens the frontier at dsn with s's settings (see Open).
func (s *Store) OpenAt(ctx context.Context, dsn string, create bool) (frontier.Frontier, error) {
	if !create && !storeurl.IsRedisURL(dsn) {
		if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no frontier at %s (push creates one)", dsn)
		}
	}
	if d := s.Opts.DepthPriority; d < record.MinPriority || d > record.MaxPriority {
		// Beyond it, priority - depth*N leaves the range a Redis score
		// orders exactly.
		return nil, cli.Usagef("--depth-priority must be between %d and %d (got %d)", record.MinPriority, record.MaxPriority, d)
	}
	o := s.Opts
	o.BusyTimeout = s.BusyTimeout
	return frontier.Open(context.WithoutCancel(ctx), dsn, o)
}

// noArgs refuses arguments to a subcommand that takes none.
func noArgs(env *cli.Env) error {
	if len(env.Args) > 0 {
		return cli.Usagef("unexpected argument %q", env.Args[0])
	}
	return nil
}
