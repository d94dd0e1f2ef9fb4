package crawl

import (
	"context"
	"errors"
	"fmt"
	"github.com/crawlutils/crawlutils/internal/cqueue"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

var crawlHelp = cli.Help{
	Usage:   "cqueue crawl SEEDS RULES OUT [flags]",
	Summary: "run a whole crawl: push the seeds, run the crawl loop to its end, account for it",
	Description: `Pushes the seeds, then runs the crawl loop

  cqueue pop --follow | cfetch | cextract -r RULES | cexport -o OUT | cqueue push

(with --cthrottle ARGS, cthrottle ARGS between cqueue pop and cfetch, sharing the
frontier's store, so every loop on it keeps one rate per host) until nothing is
queued or in flight, with one progress line on a terminal and
one account at the end. SEEDS is a file of URLs or request records, one a line
("-": stdin); a bad line is reported with its line number and skipped. RULES is
a cextract rules file, checked before anything is queued. OUT is the export
(.csv, .jsonl, .json or .xml), appended to as cexport -o does; "-" writes the
item records to stdout instead.

The crawl is named by --crawlid, by default OUT's name without its extension
(with OUT "-", the db's). The frontier is --db FILE, else --redis URL, else
$CRAWLUTILS_REDIS or $CRAWLUTILS_DB, else OUT.db. The same command run again
resumes the crawl, after a kill, a Ctrl-C or a failure: seeds seen before are
refused as duplicates and the export is completed; after a run that could fetch
nothing because the site was down (refused, dns, timeout, 5xx, …), it queues
them again. Run again once the crawl is
complete, it begins the crawl's next round: every page is fetched again, once,
its requests, and the items, carrying "round": N (with cexport --key and
--changed-only, --change-fields or --history, the items of earlier rounds a
complete round did not see are reported gone); --refresh D leaves out the
pages fetched in a round begun less than D ago. Only one run of a crawl runs at
a time: a second one exits 4 at once (the lock is in the frontier, so it holds
across machines with Redis; a run that died lets go of it within 30s, at once
on the same machine). A rerun with other rules or
other seeds is refused (exit 2), naming what differs, unless --force; so is a
first run into an OUT that already holds an export (the crawl's frontier was
lost: every item would be exported again), unless --force; and so is a
frontier that holds another crawl's unfinished requests, which the loop would
fetch too.

--cfetch ARGS (and --cextract, --cexport, --pop, --push) passes flags to that
tool. ARGS is split into words as a shell splits a command line, quotes and
backslashes included, but nothing in it is expanded: --cfetch '--concurrency 32
--user-agent "mybot/1.0 (+https://example.com/bot)"'. Repeat it to add more.
Every tool also reads its settings from the environment (CFETCH_CONCURRENCY=32)
and the config file, as on its own. The flags cqueue crawl sets itself (-q,
--stats, -o, -r, --db, …) are refused there. Before anything is queued, every
tool's flags, variables and config, and OUT's format, are checked as the tool
checks them: one it would refuse exits 2 with its own message.

--max-pages N, --max-items N, --max-time D, --max-errors N and --max-idle D
(Scrapy's CLOSESPIDER_PAGECOUNT, _ITEMCOUNT, _TIMEOUT, _ERRORCOUNT and
_TIMEOUT_NO_ITEM) give the crawl a budget, kept with it in the frontier, so it
holds across every loop sharing the crawl: once a limit is reached nothing more
is handed out, what is in flight is finished, and the run reports the crawl
stopped and why (exit 5); a later run does nothing until given a larger budget
or --next-round. A rerun without them keeps the crawl's budget.

Every --publish-every (5s; 0: never) the tools' stats are written to the
frontier, one snapshot per tool process, for cqueue serve to show (the tools
attached, items/s, HTTP errors by reason).

The first SIGINT or SIGTERM stops the crawl gracefully, as Ctrl-C stops the
loop: every tool finishes what it holds and the next run starts where this one
stopped (exit 130); a second one stops everything at once.

Exit status: 0 the crawl is complete; 1 a tool failed, or nothing could be
fetched at all (every fetch failed: the account says why), or no seed and
nothing queued; 2 usage error, rules with errors, or a rerun refused; 3 the
crawl finished but records were rejected (reported above, and counted in the
account) or a tool exited 3, or requests were dead-lettered (their pages not
fetched: the account says how to fetch them); 4 another run of the crawl is running; 5 the crawl
was stopped (cqueue stop, or cqueue serve's Stop): this run, and every run
after it until one is given --resume or --next-round; or it reached its budget
(--max-pages, …): this run, and every run after it until one is given a larger
budget or --next-round; 6 the crawl is paused
(cqueue serve's Pause): this run did nothing; 130 interrupted.`,
	Examples: `  cqueue crawl seeds.txt shop.yml items.csv
  cqueue crawl seeds.txt shop.yml items.csv --cfetch '--concurrency 32 --delay 250ms'
  cqueue crawl seeds.txt shop.yml items.csv --cthrottle '--rate 2/s'   # per host, for every loop on this frontier
  cqueue crawl seeds.txt shop.yml items.jsonl --redis redis://10.0.0.5:6379/0   # on every machine
  cqueue crawl --stats crawl.json seeds.txt shop.yml items.csv; jq .pages crawl.json
  cqueue crawl seeds.txt shop.yml items.csv --max-pages 1000 --max-time 1h   # a budget: stops at the first reached
  cqueue crawl seeds.txt shop.yml - --db shop.db | jq -c .data   # the items to stdout: name the frontier
  cqueue crawl seeds.txt shop.yml items.csv --refresh 20h --cfetch '--cache-dir cache --cache-policy rfc9111' --cexport '--changed-only --key url'   # nightly, see docs/cron.md`,
	Output: "not used: the export is OUT",
}

// crawlOptions are cqueue crawl's settings.
type crawlOptions struct {
	seeds, rules, out string
	// failures is --failures FILE: the failed pages, as cextract writes
	// them ("": a file of the run's own, for the account).
	failures string
	// filesDir is --files-dir DIR, passed on to cextract: where the
	// files of the rules' files: go.
	filesDir       string
	crawlID, appID string
	force          bool
	check          bool // --check: run the rules' tests first (contracts.go)
	// resume and nextRound say how a stopped crawl goes on.
	resume, nextRound bool
	// pass are the words passed on to each tool, by --TOOL flag name.
	pass map[string][]string
	// dsn is the frontier: an SQLite path or a Redis URL.
	dsn string
	// childFlags are the frontier's flags for the loop's cqueue pop and
	// push; queueFlags push's queueing settings.
	childFlags, queueFlags []string
	statsFile              string
	// publishEvery is how often the tools' stats are published to the
	// frontier for cqueue serve; 0: never.
	publishEvery time.Duration
	quiet        bool
	config       string
	// store has the frontier's settings (queue order, dedupe) for the
	// seeds, which cqueue crawl pushes itself.
	store cqueue.Store
	// discoverFlag is --discover as given, discover what it names (see
	// discover.go).
	discoverFlag, discover []string
	// budget is --max-pages and the rest (budget.go).
	budget budgetFlags
}

// crawlCmd is a run of cqueue crawl: its flags.
type crawlCmd struct {
	s    cqueue.Store
	o    crawlOptions
	raw  map[string]*[]string // the pass-through flags, as given
	args []string             // the arguments, as given
}

// Command is cqueue crawl, a subcommand of cqueue (cqueue.Command).
func Command() *cli.Command {
	c := &crawlCmd{o: crawlOptions{appID: "crawl", pass: map[string][]string{}}, raw: map[string]*[]string{}}
	return &cli.Command{Name: "crawl", Help: crawlHelp, Flags: c.define, Run: c.run,
		Rewrite: func(args []string) []string { c.args = args; return args }}
}

func (c *crawlCmd) define(f *cli.Flags) {
	o := &c.o
	c.s.AddFlags(f)
	f.StringVar(&o.crawlID, "crawlid", "", "the crawl's name (default: OUT's name without its extension; with OUT -, the db's)")
	f.StringVar(&o.appID, "appid", o.appID, "the appid of the seeds")
	f.StringVar(&o.failures, "failures", "", "write every page that failed (a fetch error, a status other than 2xx) or had items dropped (a required field missing) to `FILE`, one JSON record a line with its reason and the page that linked it (cextract --failures); the account names the first few")
	f.StringVar(&o.filesDir, "files-dir", "", "store the files of the item rules with files: under `DIR` (cextract --files-dir, Scrapy's FILES_STORE): each item is exported once its files are in, with \"files\"; a rerun finds them there and fetches only the missing and the expired")
	f.BoolVar(&o.check, "check", false, "run the rules file's tests: first (cextract --test, Scrapy's scrapy check) and refuse to start the crawl when one fails")
	f.BoolVar(&o.force, "force", false, "go on with rules or seeds other than those the crawl was started with (they become the crawl's), or begin a crawl into an OUT that holds an export already")
	f.BoolVar(&o.resume, "resume", false, "resume a crawl stopped by cqueue stop (or cqueue serve's Stop) where it stopped, or paused by cqueue serve's Pause; or fetch the seeds again after a run that could fetch nothing for a cause that would come back (robots.txt disallowing them), once it is fixed")
	f.BoolVar(&o.nextRound, "next-round", false, "drop what a stopped crawl's round left and begin its next round from the seeds")
	f.DurationVar(&o.publishEvery, "publish-every", statspub.DefaultEvery, "publish the loop's tools' stats to the frontier every `DURATION`, for cqueue serve; 0: never")
	for _, pt := range passThrough {
		c.raw[pt.flag] = f.StringArray(pt.flag, nil, fmt.Sprintf("pass `ARGS` to %s (words split as by a shell, nothing expanded; repeatable)", pt.tool))
	}
	c.s.AddQueueFlags(f)
	c.defineDiscover(f)
	o.budget.define(f)
}

// run runs the crawl (see crawl.run).
func (c *crawlCmd) run(ctx context.Context, env *cli.Env) error {
	start := env.Now()
	tool, f, rest := env.Tool, env.Flags, env.Args
	o, s, raw := &c.o, &c.s, c.raw
	if f.Output != "" {
		return cli.Usagef("-o %s: the export is OUT, the third argument", f.Output)
	}
	if slices.ContainsFunc(c.args, func(a string) bool {
		name, _ := flagName(a)
		return name == "stats-to" || name == "stats-crawlid"
	}) {
		return cli.Usagef("--stats-to, --stats-crawlid: cqueue crawl publishes its tools' stats to its frontier itself, every --publish-every")
	}
	if o.publishEvery < 0 || o.publishEvery > 0 && o.publishEvery < 100*time.Millisecond {
		return cli.Usagef("--publish-every %s: want 0 (never) or at least 100ms", o.publishEvery)
	}
	tool.StatsTo = "" // not from $CRAWLUTILS_STATS_TO either: see --publish-every
	if err := o.budget.check(); err != nil {
		return err
	}
	if len(rest) != 3 {
		return cli.Usagef("want SEEDS RULES OUT, got %d argument(s)", len(rest))
	}
	o.seeds, o.rules, o.out = rest[0], rest[1], rest[2]
	if msg := unresumableOut(o.out); msg != "" {
		return cli.Usagef("%s", msg)
	}
	for _, pt := range passThrough {
		for _, v := range *raw[pt.flag] {
			words, err := splitArgs(v)
			if err == nil {
				err = checkPassThrough(pt.flag, pt.reserved, words)
			} else {
				err = fmt.Errorf("--%s %q: %v", pt.flag, v, err)
			}
			if err != nil {
				return cli.Usagef("%v", err)
			}
			o.pass[pt.flag] = append(o.pass[pt.flag], words...)
		}
		if pt.flag == "cthrottle" && len(*raw[pt.flag]) > 0 && o.pass[pt.flag] == nil {
			o.pass[pt.flag] = []string{} // --cthrottle '': cthrottle with its defaults
		}
	}
	if msg := o.setStore(s, env.Getenv); msg != "" {
		return cli.Usagef("%s", msg)
	}
	if o.crawlID == "" {
		if o.out == "-" && storeurl.IsRedisURL(o.dsn) {
			return cli.Usagef("OUT is - and the frontier is in Redis: give --crawlid")
		}
		o.crawlID = defaultCrawlID(o.out, o.dsn)
	}
	if fl := f.Lookup("config"); fl != nil {
		o.config = fl.Value.String()
	}
	o.statsFile, o.quiet, o.store = tool.StatsFile, tool.Quiet, *s
	tool.StatsFile = "" // the account is written instead of the generic stats
	// The loop's own stdout: -o is refused above, never opened.
	cr := &crawl{tool: tool, o: *o, start: start, stdin: env.Stdin, stdout: env.Stdout, getenv: env.Getenv, now: env.Now}
	return cr.run(ctx)
}

// setStore resolves the frontier and the flags the loop's pop and push get
// for it; it returns a usage message when the flags do not add up.
func (o *crawlOptions) setStore(s *cqueue.Store, getenv func(string) string) string {
	if s.DB != "" && s.Redis != "" {
		return "--db and --redis: give one"
	}
	dsn, err := s.DSN(getenv)
	if err != nil && !errors.Is(err, cqueue.ErrNoFrontier) {
		return err.Error()
	}
	s.Opts.Getenv = getenv
	if err != nil {
		if o.out == "-" {
			return "OUT is -: give --db FILE or --redis URL (the frontier is OUT.db otherwise)"
		}
		dsn = o.out + ".db"
	}
	o.dsn = dsn
	if !storeurl.IsRedisURL(dsn) {
		// A Redis URL goes to pop and push in $CRAWLUTILS_REDIS, out of
		// sight of ps: it may hold a password.
		o.childFlags = []string{"--db", dsn}
	}
	if s.BusyTimeout > 0 {
		o.childFlags = append(o.childFlags, "--busy-timeout", s.BusyTimeout.String())
	}
	if s.ScrapyKeys {
		o.queueFlags = append(o.queueFlags, "--scrapy-fingerprints")
	}
	if s.Opts.DedupeTTL > 0 {
		o.queueFlags = append(o.queueFlags, "--dedupe-ttl", s.Opts.DedupeTTL.String())
	}
	if s.Refresh > 0 {
		o.queueFlags = append(o.queueFlags, "--refresh", s.Refresh.String())
	}
	if s.Opts.Order == frontier.LIFO {
		o.queueFlags = append(o.queueFlags, "--order", "lifo")
	}
	if s.Opts.DepthPriority != 0 {
		o.queueFlags = append(o.queueFlags, "--depth-priority", strconv.Itoa(s.Opts.DepthPriority))
	}
	return ""
}

// dsnFlag is the frontier's flag, for the commands a message suggests.
func (o *crawlOptions) dsnFlag() string {
	if storeurl.IsRedisURL(o.dsn) {
		return "--redis " + cli.ShellQuote(storeurl.Redact(o.dsn))
	}
	return "--db " + cli.ShellQuote(o.dsn)
}

// defaultCrawlID names a crawl after its export (never after its rules: a
// crawl rerun with fixed rules must stay the same crawl), or after its db
// when the items go to stdout.
func defaultCrawlID(out, dsn string) string {
	name := out
	if out == "-" {
		name = dsn
	}
	if table := dbOutTable(out); table != "" {
		return table
	}
	base := filepath.Base(name)
	if id := strings.TrimSuffix(base, filepath.Ext(base)); id != "" {
		return id
	}
	return base
}

// unresumableOut says why OUT cannot be the export of a crawl loop, or "":
// a compressed JSON array or XML document cannot be appended to (its
// closing is inside the compressed data), so a crawl killed once could
// never be resumed into it.
func unresumableOut(out string) string {
	lower := strings.ToLower(out)
	for _, z := range []string{".gz", ".zst"} {
		base, ok := strings.CutSuffix(lower, z)
		if !ok {
			continue
		}
		for _, doc := range []struct{ ext, alt string }{{".json", ".jsonl"}, {".xml", ".jsonl"}} {
			if strings.HasSuffix(base, doc.ext) {
				alt := out[:len(base)-len(doc.ext)] + doc.alt + out[len(base):]
				return fmt.Sprintf("OUT %s: a compressed %s document cannot be appended to, so a crawl killed once could not be resumed into it: export JSON lines (%s) or CSV, or %s uncompressed, and compress it when the crawl is complete",
					out, strings.ToUpper(doc.ext[1:]), alt, out[:len(base)])
			}
		}
	}
	return ""
}
