package cqueue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Run is the cqueue command: a subcommand and its flags in args. It
// returns the exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	tool := cli.NewTool("cqueue", stderr)
	if len(args) == 0 {
		return tool.Usage("missing subcommand (%s)", strings.Join(subcommandNames, ", "))
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, topHelp)
		return cli.ExitOK
	case "--version":
		fmt.Fprintf(stdout, "cqueue %s (crawlutils)\n", cli.Version)
		return cli.ExitOK
	}
	sub, ok := subcommands[args[0]]
	if !ok {
		return tool.Usage("unknown subcommand %q (%s)", args[0], strings.Join(subcommandNames, ", "))
	}
	tool.Sub = args[0]
	out := &output{w: stdout}
	code := sub(ctx, tool, args[1:], stdin, out)
	if err := out.finish(); err != nil {
		tool.Printf("-o: %v", err)
		if code == cli.ExitOK || code == cli.ExitPartial {
			code = cli.ExitFailure
		}
	}
	return code
}

type subcommand func(ctx context.Context, tool *cli.Tool, args []string, stdin io.Reader, stdout io.Writer) int

var subcommandNames = []string{"crawl", "push", "pop", "reclaim", "info", "stop", "expire", "stats", "dump", "serve"}

var subcommands map[string]subcommand

func init() {
	subcommands = map[string]subcommand{
		"crawl": runCrawl, "push": runPush, "pop": runPop, "reclaim": runReclaim, "info": runInfo,
		"stop": runStop, "expire": runExpire, "stats": runStats, "dump": runDump, "serve": runServe,
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

// store holds the flags every subcommand shares: where the frontier is.
type store struct {
	db          string
	redis       string
	busyTimeout time.Duration
	opts        frontier.Options
	scrapyKeys  bool
	refresh     time.Duration // cqueue push --refresh
}

func (s *store) addFlags(f *cli.Flags) {
	f.StringVar(&s.db, "db", "", "the frontier's SQLite `FILE` (default $CRAWLUTILS_DB)")
	f.StringVar(&s.redis, "redis", "", "the frontier's Redis `URL`, redis://host:port/db, or a Redis Cluster: redis+cluster://h1:port,h2:port (default $CRAWLUTILS_REDIS)")
	f.DurationVar(&s.busyTimeout, "busy-timeout", 0, "how long to wait for another process's write lock on the SQLite file (default 5s)")
}

// addQueueFlags adds the settings applied when requests are queued; every
// process sharing a frontier must use the same.
func (s *store) addQueueFlags(f *cli.Flags) {
	f.BoolVar(&s.scrapyKeys, "scrapy-fingerprints", false, "dedupe with Scrapy's SHA-1 request fingerprints (exportable with cdedupe --export-seen) instead of the faster 64-bit key")
	f.DurationVar(&s.opts.DedupeTTL, "dedupe-ttl", 0, "forget a crawl's seen requests after it has been idle this long (Scrapy Cluster's DUPEFILTER_TIMEOUT); 0: never")
	f.Func("order", "order within a priority: fifo or lifo (SCHEDULER_DISK_QUEUE) (default fifo)", func(v string) error {
		switch strings.ToLower(v) {
		case "fifo":
			s.opts.Order = frontier.FIFO
		case "lifo":
			s.opts.Order = frontier.LIFO
		default:
			return fmt.Errorf("want fifo or lifo")
		}
		return nil
	})
	f.DurationVar(&s.refresh, "refresh", 0, "in a new round of a crawl, do not fetch again a URL seen in a round begun less than `D` ago (Scrapy Cluster's dupefilter expiry, scrapy-deltafetch); 0: fetch every page again each round")
	f.IntVar(&s.opts.DepthPriority, "depth-priority", 0, "queue at priority - depth*N (DEPTH_PRIORITY): positive is breadth-first, negative with --order lifo depth-first")
}

func (s *store) keyMode() frontier.KeyMode {
	if s.scrapyKeys {
		return frontier.KeyScrapy
	}
	return frontier.KeyFast
}

// dsn picks the frontier: --redis, --db, then the environment.
func (s *store) dsn() (string, error) {
	switch {
	case s.redis != "" && s.db != "":
		return "", fmt.Errorf("--db and --redis: give one")
	case s.redis != "":
		return s.redis, dedupe.CheckRedisURL("--redis", s.redis)
	case s.db != "":
		return s.db, nil
	}
	if v := os.Getenv("CRAWLUTILS_REDIS"); v != "" {
		return v, dedupe.CheckRedisURL("$CRAWLUTILS_REDIS", v)
	}
	if v := os.Getenv("CRAWLUTILS_DB"); v != "" {
		return v, nil
	}
	return "", errNoFrontier
}

// errNoFrontier is dsn's error when no flag or variable names a frontier.
var errNoFrontier = errors.New("no frontier: give --db FILE or --redis URL (or set CRAWLUTILS_DB)")

// open parses the flags' frontier; on failure it reports and returns the
// exit status. Only push creates an SQLite file (create): the other
// subcommands refuse one that does not exist, so a mistyped --db is an
// error, not an empty frontier (and a loop on it does not "finish" at once).
func (s *store) open(ctx context.Context, tool *cli.Tool, create bool) (frontier.Frontier, int) {
	dsn, err := s.dsn()
	if err != nil {
		return nil, tool.Usage("%v", err)
	}
	if !create && !dedupe.IsRedisURL(dsn) {
		if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
			tool.Printf("no frontier at %s (push creates one)", dsn)
			return nil, cli.ExitFailure
		}
	}
	if d := s.opts.DepthPriority; d < record.MinPriority || d > record.MaxPriority {
		// Beyond it, priority - depth*N leaves the range a Redis score
		// orders exactly.
		return nil, tool.Usage("--depth-priority must be between %d and %d (got %d)", record.MinPriority, record.MaxPriority, d)
	}
	o := s.opts
	o.BusyTimeout = s.busyTimeout
	f, err := frontier.Open(context.WithoutCancel(ctx), dsn, o)
	if err != nil {
		tool.Printf("%v", err)
		return nil, cli.ExitFailure
	}
	return f, cli.ExitOK
}

// parse parses a subcommand's flags, then checks there are no arguments
// unless allowed.
func parse(tool *cli.Tool, f *cli.Flags, args []string, stdout io.Writer, argsOK bool) (rest []string, code int, done bool) {
	rest, code, done = f.Parse(args, stdout)
	if done {
		return nil, code, true
	}
	if !argsOK && len(rest) > 0 {
		return nil, tool.Usage("unexpected argument %q", rest[0]), true
	}
	if out, ok := stdout.(*output); ok {
		if err := out.open(f); err != nil {
			tool.Printf("%v", err)
			return nil, cli.ExitFailure, true
		}
	}
	return rest, cli.ExitOK, false
}
