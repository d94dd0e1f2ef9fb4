package cdedupe

import (
	"fmt"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// Options are cdedupe's settings.
type Options struct {
	DB, Redis   string
	Key         string
	Namespace   string
	TTL         time.Duration
	Scrapy      bool
	ImportSeen  string
	ExportSeen  string
	Batch       int
	BusyTimeout time.Duration

	getenv func(string) string // the command's environment, for dsn
}

var help = cli.Help{
	Usage:   "cdedupe [flags] [FILE...]",
	Summary: "pass each record only the first time its key is seen (Scrapy's dupefilter, persistent)",
	Description: `Reads records (stdin, or the FILEs) and writes each one the first time its key is seen
in the seen-set, an SQLite file (--db, or $CRAWLUTILS_DB) or Redis (--redis, or
$CRAWLUTILS_REDIS) that every process naming it shares, across runs. Later ones are dropped
and counted as "duplicate". A key is seen once its batch is checked, before the next command
reads the record: what a | head or a dead next command never read is dropped by later runs
too, so look at the output under a namespace of its own (--namespace try-1). The set holds
64-bit hashes of the keys: the odds that two of n keys in a namespace collide are about n²/2^65.

Keys: a request's fingerprint (method, canonical URL and body, as the frontier computes it;
--scrapy-fingerprints for Scrapy's SHA-1), an item's data, or the value of the jq expression
--key for any record. Keys live in a namespace: --namespace, else the record's crawlid, else
"default". Requests with dont_filter, records of other kinds, and records for which --key
gives nothing (or null) pass through unchecked.

A Scrapy JOBDIR's requests.seen can be read in (--import-seen) and written out
(--export-seen) with --scrapy-fingerprints.`,
	Examples: `  # drop the items a killed-and-resumed crawl exported twice
  cdedupe --db seen.db --key .url < items.jsonl > unique.jsonl

  # a persistent dupefilter in front of the fetcher, shared by every machine
  cdedupe --redis redis://10.0.0.5:6379/0 < requests.jsonl | cfetch | …

  # carry a Scrapy crawl's seen requests over
  cdedupe --db seen.db --scrapy-fingerprints --namespace shop --import-seen jobdir/requests.seen < urls.txt`,
}

// Command returns the cdedupe command, for cli.Main or cli.Execute.
func Command() *cli.Command {
	o := &Options{}
	return &cli.Command{Name: "cdedupe", Help: help, Flags: o.define, Run: o.run, OpenStats: toolstats.OpenSink}
}

func (o *Options) define(f *cli.Flags) {
	f.StringVar(&o.DB, "db", "", "the seen-set's SQLite `FILE` (default $CRAWLUTILS_DB)")
	f.StringVar(&o.Redis, "redis", "", "the seen-set's Redis `URL`, redis://host:port/db, or a Redis Cluster: redis+cluster://h1:port,h2:port (default $CRAWLUTILS_REDIS)")
	f.StringVar(&o.Key, "key", "", "dedupe by the value of the jq `EXPR` (e.g. .data.upc) instead of the default keys")
	f.StringVar(&o.Namespace, "namespace", "", "put every key in namespace `NS` (default: the record's crawlid, else \"default\")")
	f.DurationVar(&o.TTL, "ttl", 0, "forget a namespace idle this long (Scrapy Cluster's DUPEFILTER_TIMEOUT; 0: never)")
	f.BoolVar(&o.Scrapy, "scrapy-fingerprints", false, "key requests by Scrapy's SHA-1 request fingerprint (needed for requests.seen)")
	f.StringVar(&o.ImportSeen, "import-seen", "", "first mark the fingerprints of a Scrapy requests.seen `FILE` as seen (with --scrapy-fingerprints)")
	f.StringVar(&o.ExportSeen, "export-seen", "", "at the end, write the namespace's Scrapy fingerprints to `FILE` as requests.seen")
	f.IntVar(&o.Batch, "batch", 500, "check up to `N` records per round trip to the store (also when input stalls)")
	f.DurationVar(&o.BusyTimeout, "busy-timeout", 0, "wait this long for another process's write lock on the SQLite file (default 5s)")
}

// Validate checks the options.
func (o *Options) Validate() error {
	if o.Batch < 1 {
		return fmt.Errorf("--batch %d: must be at least 1", o.Batch)
	}
	if (o.ImportSeen != "" || o.ExportSeen != "") && !o.Scrapy {
		return fmt.Errorf("--import-seen and --export-seen hold Scrapy fingerprints: add --scrapy-fingerprints")
	}
	if (o.ImportSeen != "" || o.ExportSeen != "") && o.Namespace == "" {
		return fmt.Errorf("--import-seen and --export-seen need --namespace (the crawl the file belongs to)")
	}
	if o.TTL < 0 {
		return fmt.Errorf("--ttl %v: must not be negative", o.TTL)
	}
	_, err := o.dsn()
	return err
}

// dsn picks the store: --redis, --db, then the environment.
func (o *Options) dsn() (string, error) {
	getenv := o.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	dsn, err := cli.StoreDSN(o.DB, o.Redis, getenv)
	if err == nil && dsn == "" {
		err = fmt.Errorf("no seen-set: give --db FILE or --redis URL (or set CRAWLUTILS_DB)")
	}
	return dsn, err
}
