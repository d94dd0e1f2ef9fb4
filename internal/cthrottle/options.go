package cthrottle

import (
	"fmt"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/throttle"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// What --on-overflow does with a record whose slot is past --max-wait.
const (
	overflowReject = "reject" // write it to --rejects, count it, go on
	overflowWait   = "wait"   // hold it however long
	overflowFail   = "fail"   // stop, exit 1
)

// Options are cthrottle's settings.
type Options struct {
	Rate           string
	Burst          int
	Key            string
	RatesFile      string
	MaxWait        time.Duration
	OnOverflow     string
	Rejects        string
	RequireKey     bool
	Buffer         int
	Batch          int
	DB, Redis      string
	Local          bool
	BusyTimeout    time.Duration
	Robots         bool
	RobotsAgent    string
	RobotsMaxDelay time.Duration
	Debug          bool

	getenv func(string) string // the command's environment, for dsn
	rate   throttle.Rate
}

var help = cli.Help{
	Usage:   "cthrottle [flags] [FILE...]",
	Summary: "hold requests so that each host (or key) gets at most RATE, across every process sharing the state",
	Description: `Reads records (stdin, or the FILEs) and passes each request on once its key may
start: at most --rate per key (one start every 1/RATE; --burst starts at once after a
pause), counted together by every cthrottle sharing the state: an SQLite file (--db, or
$CRAWLUTILS_DB; it may be the frontier's), a Redis server (--redis, or $CRAWLUTILS_REDIS;
machines share one schedule on the server's clock), or this process alone (--local).
Scrapy's DOWNLOAD_DELAY for a whole fleet; Scrapy Cluster's throttled queue.

The key is the request's host (host:port of its url, lowercased, in ASCII, without the
scheme's default port), or the value of the jq expression --key. --rates FILE gives some keys
their own rate, one "KEY RATE [burst=N]" a line ("example.com 1/5s"; # comments).
RATE is COUNT/PERIOD: 3/s, 90/m, 1/2s, 1/500ms.

A request waits only for its own key: other keys pass meanwhile, each key's records in
the order they came. Responses, items, acks and other records pass at once, unchanged.
A request without a key (no host, or --key gives null) passes at once and is counted
"unkeyed" (--require-key: rejected instead).

A request whose slot is further than --max-wait ahead is not held: --on-overflow
reject (the default) writes it to --rejects with "reason":"throttled" and counts it; a
request with a "lease" (from cqueue pop) waits instead, since a rejected one would never
be acked; wait holds every one; fail stops and exits 1.

--robots also reads each host's robots.txt (once per host): a Crawl-delay or
Request-rate slower than the rate wins. A host that answered 429 (or keeps failing) to a
cfetch sharing the state (cfetch --throttle-db/--throttle-redis) is held by every
cthrottle until the rest that cfetch took ends, then kept to the rate.

At the end of input every held record is written at its slot. The first SIGINT or
SIGTERM writes every held record at once, unthrottled, and exits 130: the signal stops
the whole pipeline, and cfetch starts no new request after it (a request with a lease
goes back to the frontier). To stop cthrottle alone while its reader goes on fetching,
close its input instead.`,
	Examples: `  # at most 2 requests a second to each host, shared by every loop on crawl.db
  cqueue pop --db crawl.db --follow | cthrottle --db crawl.db --rate 2/s | cfetch | …

  # one request every 5 s to example.com, 10/s elsewhere, for a fleet of machines
  printf 'example.com 1/5s\n' > rates.txt
  cthrottle --redis redis://10.0.0.5:6379/0 --rate 10/s --rates rates.txt < requests.jsonl | cfetch

  # per account instead of per host, bursts of 5
  cthrottle --local --key .attrs.account --rate 30/m --burst 5 < requests.jsonl

  # obey robots.txt Crawl-delay too; see what was held and why
  cthrottle --local --rate 4/s --robots --debug urls.txt > throttled.jsonl`,
}

// Command returns the cthrottle command, for cli.Main or cli.Execute.
func Command() *cli.Command {
	o := &Options{}
	return &cli.Command{Name: "cthrottle", Help: help, Flags: o.define, Run: o.run, OpenStats: toolstats.OpenSink,
		Check: func(env *cli.Env) error { _, _, err := o.check(env); return err }}
}

func (o *Options) define(f *cli.Flags) {
	f.StringVar(&o.Rate, "rate", "1/s", "starts per key: `COUNT/PERIOD` such as 3/s, 90/m, 1/2s (Scrapy DOWNLOAD_DELAY is its inverse)")
	f.IntVar(&o.Burst, "burst", 1, "starts a key may make at once after a pause (1: always 1/RATE apart)")
	f.StringVar(&o.Key, "key", "", "throttle by the value of the jq `EXPR` (e.g. .appid, .attrs.account) instead of the request's host")
	f.StringVar(&o.RatesFile, "rates", "", "per-key rates from `FILE`: lines \"KEY RATE [burst=N]\", # comments")
	f.DurationVar(&o.MaxWait, "max-wait", 15*time.Second, "longest a request is held; one whose slot is further is not held (see --on-overflow)")
	f.StringVar(&o.OnOverflow, "on-overflow", overflowReject, "what to do past --max-wait, `MODE`: reject (to --rejects, counted), wait (hold anyway) or fail (exit 1)")
	f.StringVar(&o.Rejects, "rejects", "", "write rejected records to `FILE`, each with a \"reason\" (throttled, unkeyed)")
	f.BoolVar(&o.RequireKey, "require-key", false, "reject requests without a key instead of passing them unthrottled")
	f.IntVar(&o.Buffer, "buffer", 10000, "most records held at once; past it, reading stops until one is written")
	f.IntVar(&o.Batch, "batch", 512, "most records reserved per round trip to the state")
	f.StringVar(&o.DB, "db", "", "the schedule's SQLite `FILE`, shared by the processes that name it (default $CRAWLUTILS_DB)")
	f.StringVar(&o.Redis, "redis", "", "the schedule's Redis `URL`, redis://host:port/db or redis+cluster://h1:port,h2:port, shared across machines (default $CRAWLUTILS_REDIS)")
	f.BoolVar(&o.Local, "local", false, "keep the schedule in this process only (golang.org/x/time/rate), shared with nobody")
	f.DurationVar(&o.BusyTimeout, "busy-timeout", 0, "wait this long for another process's write lock on the SQLite file (default 5s)")
	f.BoolVar(&o.Robots, "robots", false, "also obey each host's robots.txt Crawl-delay and Request-rate when slower than the rate")
	f.StringVar(&o.RobotsAgent, "robots-agent", "crawlutils", "`TOKEN` matched against robots.txt User-agent lines (Scrapy ROBOTSTXT_USER_AGENT)")
	f.DurationVar(&o.RobotsMaxDelay, "robots-max-delay", 60*time.Second, "largest robots.txt delay obeyed, as cfetch's --autothrottle-max-delay (Scrapy AUTOTHROTTLE_MAX_DELAY)")
	f.BoolVar(&o.Debug, "debug", false, "print every decision to stderr: the record, its key, its slot (the store's clock) and its wait")
}

// Validate checks the options; its errors name the flag.
func (o *Options) Validate() error {
	r, err := throttle.ParseRate(o.Rate)
	if err != nil {
		return fmt.Errorf("--rate %q: %v", o.Rate, err)
	}
	r.Burst = o.Burst
	if o.Burst < 1 || o.Burst > throttle.MaxBurst {
		return fmt.Errorf("--burst %d: must be between 1 and %d", o.Burst, throttle.MaxBurst)
	}
	o.rate = r
	switch {
	case o.MaxWait < 0:
		return fmt.Errorf("--max-wait %v: must not be negative", o.MaxWait)
	case o.OnOverflow != overflowReject && o.OnOverflow != overflowWait && o.OnOverflow != overflowFail:
		return fmt.Errorf("--on-overflow %q: want reject, wait or fail", o.OnOverflow)
	case o.Buffer < 1:
		return fmt.Errorf("--buffer %d: must be at least 1", o.Buffer)
	case o.Batch < 1:
		return fmt.Errorf("--batch %d: must be at least 1", o.Batch)
	case o.Robots && o.Key != "":
		return fmt.Errorf("--robots applies to hosts: it cannot be used with --key")
	case o.RobotsMaxDelay < 0:
		return fmt.Errorf("--robots-max-delay %v: must not be negative", o.RobotsMaxDelay)
	case o.Robots && strings.TrimSpace(o.RobotsAgent) == "":
		return fmt.Errorf("--robots-agent: must not be empty")
	}
	_, err = o.dsn()
	return err
}

// dsn picks the state: --local (""), --redis, --db, then the environment.
func (o *Options) dsn() (string, error) {
	given := 0
	for _, set := range []bool{o.Local, o.Redis != "", o.DB != ""} {
		if set {
			given++
		}
	}
	switch {
	case given > 1:
		return "", fmt.Errorf("--local, --db and --redis: give one")
	case o.Local:
		return "", nil
	}
	getenv := o.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if dsn, err := cli.StoreDSN(o.DB, o.Redis, getenv); err != nil || dsn != "" {
		return dsn, err
	}
	return "", fmt.Errorf("no schedule to share: give --db FILE, --redis URL or --local (or set CRAWLUTILS_DB)")
}

// maxWait is the MaxWait of a reservation for a record.
func (o *Options) maxWait(leased bool) time.Duration {
	if o.OnOverflow == overflowWait || leased && o.OnOverflow == overflowReject {
		return throttle.NoMaxWait
	}
	return o.MaxWait
}
