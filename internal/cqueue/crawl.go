package cqueue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/frontier"
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
refused as duplicates and the export is completed. A rerun with other rules or
other seeds is refused (exit 2), naming what differs, unless --force; so is a
frontier that holds another crawl's unfinished requests, which the loop would
fetch too.

--cfetch ARGS (and --cextract, --cexport, --pop, --push) passes flags to that
tool. ARGS is split into words as a shell splits a command line, quotes and
backslashes included, but nothing in it is expanded: --cfetch '--concurrency 32
--user-agent "mybot/1.0 (+https://example.com/bot)"'. Repeat it to add more.
Every tool also reads its settings from the environment (CFETCH_CONCURRENCY=32)
and the config file, as on its own. The flags cqueue crawl sets itself (-q,
--stats, -o, -r, --db, …) are refused there.

The first SIGINT or SIGTERM stops the crawl gracefully, as Ctrl-C stops the
loop: every tool finishes what it holds and the next run starts where this one
stopped (exit 130); a second one stops everything at once.

Exit status: 0 the crawl is complete; 1 a tool failed, or nothing could be
fetched at all (every fetch failed: the account says why), or no seed and
nothing queued; 2 usage error, rules with errors, or a rerun refused; 3 the
crawl finished but records were rejected (reported above, and counted in the
account) or a tool exited 3; 130 interrupted.`,
	Examples: `  cqueue crawl seeds.txt shop.yml items.csv
  cqueue crawl seeds.txt shop.yml items.csv --cfetch '--concurrency 32 --delay 250ms'
  cqueue crawl seeds.txt shop.yml items.csv --cthrottle '--rate 2/s'   # per host, for every loop on this frontier
  cqueue crawl seeds.txt shop.yml items.jsonl --redis redis://10.0.0.5:6379/0   # on every machine
  cqueue crawl --stats crawl.json seeds.txt shop.yml items.csv; jq .pages crawl.json
  cqueue crawl seeds.txt shop.yml - | jq -c .data`,
	Output: "not used: the export is OUT",
}

// crawlOptions are cqueue crawl's settings.
type crawlOptions struct {
	seeds, rules, out string
	crawlID, appID    string
	force             bool
	// pass are the words passed on to each tool, by --TOOL flag name.
	pass map[string][]string
	// dsn is the frontier: an SQLite path or a Redis URL.
	dsn string
	// childFlags are the frontier's flags for the loop's cqueue pop and
	// push; queueFlags push's queueing settings.
	childFlags, queueFlags []string
	statsFile              string
	quiet                  bool
	config                 string
	// store has the frontier's settings (queue order, dedupe) for the
	// seeds, which cqueue crawl pushes itself.
	store store
}

func runCrawl(ctx context.Context, tool *cli.Tool, args []string, stdin io.Reader, stdout io.Writer) int {
	if o, ok := stdout.(*output); ok {
		stdout = o.w // the loop's own stdout; -o is refused below, never opened
	}
	start := time.Now()
	var s store
	o := crawlOptions{appID: "crawl", pass: map[string][]string{}}
	raw := map[string]*[]string{}
	f := tool.NewFlags(crawlHelp)
	s.addFlags(f)
	f.StringVar(&o.crawlID, "crawlid", "", "the crawl's name (default: OUT's name without its extension; with OUT -, the db's)")
	f.StringVar(&o.appID, "appid", o.appID, "the appid of the seeds")
	f.BoolVar(&o.force, "force", false, "go on with rules or seeds other than those the crawl was started with (they become the crawl's)")
	for _, pt := range passThrough {
		raw[pt.flag] = f.StringArray(pt.flag, nil, fmt.Sprintf("pass `ARGS` to %s (words split as by a shell, nothing expanded; repeatable)", pt.tool))
	}
	s.addQueueFlags(f)
	rest, code, done := parse(tool, f, args, stdout, true)
	if done {
		return code
	}
	if f.Output != "" {
		return tool.Usage("-o %s: the export is OUT, the third argument", f.Output)
	}
	if len(rest) != 3 {
		return tool.Usage("want SEEDS RULES OUT, got %d argument(s)", len(rest))
	}
	o.seeds, o.rules, o.out = rest[0], rest[1], rest[2]
	for _, pt := range passThrough {
		for _, v := range *raw[pt.flag] {
			words, err := splitArgs(v)
			if err == nil {
				err = checkPassThrough(pt.flag, pt.reserved, words)
			} else {
				err = fmt.Errorf("--%s %q: %v", pt.flag, v, err)
			}
			if err != nil {
				return tool.Usage("%v", err)
			}
			o.pass[pt.flag] = append(o.pass[pt.flag], words...)
		}
		if pt.flag == "cthrottle" && len(*raw[pt.flag]) > 0 && o.pass[pt.flag] == nil {
			o.pass[pt.flag] = []string{} // --cthrottle '': cthrottle with its defaults
		}
	}
	if msg := o.setStore(&s); msg != "" {
		return tool.Usage("%s", msg)
	}
	if o.crawlID == "" {
		if o.out == "-" && dedupe.IsRedisURL(o.dsn) {
			return tool.Usage("OUT is - and the frontier is in Redis: give --crawlid")
		}
		o.crawlID = defaultCrawlID(o.out, o.dsn)
	}
	if fl := f.Lookup("config"); fl != nil {
		o.config = fl.Value.String()
	}
	o.statsFile, o.quiet, o.store = tool.StatsFile, tool.Quiet, s
	tool.StatsFile = "" // the account is written instead of the generic stats
	return (&crawl{tool: tool, o: o, start: start, stdin: stdin, stdout: stdout}).run(ctx)
}

// setStore resolves the frontier and the flags the loop's pop and push get
// for it; it returns a usage message when the flags do not add up.
func (o *crawlOptions) setStore(s *store) string {
	if s.db != "" && s.redis != "" {
		return "--db and --redis: give one"
	}
	dsn, err := s.dsn()
	if err != nil {
		if o.out == "-" {
			return "OUT is -: give --db FILE or --redis URL (the frontier is OUT.db otherwise)"
		}
		dsn = o.out + ".db"
	}
	o.dsn = dsn
	if !dedupe.IsRedisURL(dsn) {
		// A Redis URL goes to pop and push in $CRAWLUTILS_REDIS, out of
		// sight of ps: it may hold a password.
		o.childFlags = []string{"--db", dsn}
	}
	if s.busyTimeout > 0 {
		o.childFlags = append(o.childFlags, "--busy-timeout", s.busyTimeout.String())
	}
	if s.scrapyKeys {
		o.queueFlags = append(o.queueFlags, "--scrapy-fingerprints")
	}
	if s.opts.DedupeTTL > 0 {
		o.queueFlags = append(o.queueFlags, "--dedupe-ttl", s.opts.DedupeTTL.String())
	}
	if s.opts.Order == frontier.LIFO {
		o.queueFlags = append(o.queueFlags, "--order", "lifo")
	}
	if s.opts.DepthPriority != 0 {
		o.queueFlags = append(o.queueFlags, "--depth-priority", strconv.Itoa(s.opts.DepthPriority))
	}
	return ""
}

// dsnFlag is the frontier's flag, for the commands a message suggests.
func (o *crawlOptions) dsnFlag() string {
	if dedupe.IsRedisURL(o.dsn) {
		return "--redis " + shellQuote(redactDSN(o.dsn))
	}
	return "--db " + shellQuote(o.dsn)
}

// defaultCrawlID names a crawl after its export (never after its rules: a
// crawl rerun with fixed rules must stay the same crawl), or after its db
// when the items go to stdout.
func defaultCrawlID(out, dsn string) string {
	name := out
	if out == "-" {
		name = dsn
	}
	base := filepath.Base(name)
	if id := strings.TrimSuffix(base, filepath.Ext(base)); id != "" {
		return id
	}
	return base
}

// crawl is one run of cqueue crawl.
type crawl struct {
	tool   *cli.Tool
	o      crawlOptions
	start  time.Time
	stdin  io.Reader
	stdout io.Writer

	fr    frontier.Frontier
	tmp   string // the tools' stats files
	tools toolPaths
	id    identity
	seed  seedResult
	meta  map[string]string // the crawl's metadata as this run began
}

// metaLastFailure is the crawl metadata that says its last run fetched
// nothing at all, and why.
const metaLastFailure = "last_failure"

func (c *crawl) run(ctx context.Context) int {
	tool, o := c.tool, &c.o
	var err error
	_, throttle := o.pass["cthrottle"]
	if c.tools, err = findTools(throttle); err != nil {
		tool.Printf("%v", err)
		return cli.ExitFailure
	}
	if c.tmp, err = os.MkdirTemp("", "cqueue-crawl-"); err != nil {
		tool.Printf("%v", err)
		return cli.ExitFailure
	}
	defer os.RemoveAll(c.tmp)

	// Nothing is stored before the rules and the seeds are known good: a
	// mistyped name must not leave a crawl behind.
	rules, err := os.ReadFile(o.rules)
	if err != nil {
		tool.Printf("rules: %v", describeOpen(err))
		return cli.ExitUsage
	}
	c.id.rules, c.id.rulesSHA, c.id.out = o.rules, sha(rules), o.out
	code := c.checkRules(ctx)
	if code != cli.ExitOK {
		return code
	}
	if code := c.readSeeds(); code != cli.ExitOK {
		return code
	}

	c.fr, code = o.store.openDSN(ctx, tool, o.dsn)
	if c.fr == nil {
		return code
	}
	defer c.fr.Close()
	bg := context.WithoutCancel(ctx)
	if code := c.checkFrontier(bg); code != cli.ExitOK {
		return code
	}
	// The seeds are pushed whole even if interrupted meanwhile: a crawl
	// half seeded would be refused on its rerun for other seeds.
	if code := c.pushSeeds(bg); code != cli.ExitOK {
		return code
	}
	code, done := c.beforeLoop(bg)
	if cli.Interrupted(ctx) {
		tool.Printf("interrupted before the crawl loop began: run the same command again")
		return cli.ExitInterrupted
	}
	if done {
		return code
	}
	res := c.runLoop(ctx)
	c.copyToolStats()
	return c.finish(ctx, res)
}

// copyToolStats honours CFETCH_STATS, CEXTRACT_STATS and CEXPORT_STATS, as
// the tools on their own would: each gets a copy of its tool's stats.
// (cqueue crawl's own --stats, or $CQUEUE_CRAWL_STATS, has every tool's.)
func (c *crawl) copyToolStats() {
	for _, name := range []string{"cfetch", "cextract", "cexport"} {
		dst := os.Getenv(cli.EnvName(name, "stats"))
		if dst == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.tmp, name+".json"))
		if err == nil {
			err = cli.WriteFileAtomic(dst, b)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.tool.Printf("warning: %s: %v", cli.EnvName(name, "stats"), err)
		}
	}
}

// checkRules has cextract check the rules file; its report is shown only
// when the rules have errors.
func (c *crawl) checkRules(ctx context.Context) int {
	code, out := c.runOnce(ctx, "cextract", c.tools.cextract, "--check", c.o.rules)
	if code == cli.ExitOK {
		return code
	}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		c.tool.Relay(line)
	}
	c.tool.Printf("rules %s: not usable (see above): nothing was queued", c.o.rules)
	if code == cli.ExitFailure {
		return code
	}
	return cli.ExitUsage
}

// checkFrontier refuses a crawl the frontier cannot run as asked: another
// crawl's requests are waiting in it (the loop would fetch them too, into
// OUT, with these rules), or this crawl was started with other rules or
// seeds (unless --force).
func (c *crawl) checkFrontier(ctx context.Context) int {
	tool, o := c.tool, &c.o
	info, err := c.fr.Info(ctx, frontier.InfoFilter{})
	if err != nil {
		tool.Printf("%v", err)
		return cli.ExitFailure
	}
	refused := false
	own := "--db"
	if dedupe.IsRedisURL(o.dsn) {
		own = "Redis database (redis://host:port/N)"
	}
	for _, ci := range info.Crawls {
		if ci.CrawlID == o.crawlID || ci.Pending+ci.InFlight == 0 {
			continue
		}
		tool.Printf("the frontier %s also holds crawl %q (%d queued, %d in flight), which this crawl loop would fetch too, with these rules, into %s: to resume that crawl, give --crawlid %s; to drop it, cqueue stop %s --crawlid %s; or give this crawl its own %s",
			redactDSN(o.dsn), ci.CrawlID, ci.Pending, ci.InFlight, outName(o.out), shellQuote(ci.CrawlID), o.dsnFlag(), shellQuote(ci.CrawlID), own)
		refused = true
	}
	if refused {
		return cli.ExitUsage
	}
	meta, err := c.fr.CrawlMeta(ctx, o.crawlID)
	if err != nil {
		tool.Printf("%v", err)
		return cli.ExitFailure
	}
	c.meta = meta
	if conflicts := c.id.conflicts(o.crawlID, meta); len(conflicts) > 0 {
		for _, msg := range conflicts {
			if o.force {
				tool.Printf("%s (--force: going on)", strings.SplitN(msg, ": use --force", 2)[0])
			} else {
				tool.Printf("%s", msg)
			}
		}
		if !o.force {
			return cli.ExitUsage
		}
	}
	if prev := meta["out"]; prev != "" && prev != o.out && !o.quiet {
		tool.Printf("warning: crawl %q was started with OUT %s; this run exports to %s, so its items are split between the two", o.crawlID, outName(prev), outName(o.out))
	}
	return cli.ExitOK
}

// beforeLoop decides whether there is anything to crawl, and records the
// crawl's identity once there is; done says the run is over with code.
func (c *crawl) beforeLoop(ctx context.Context) (code int, done bool) {
	tool, o := c.tool, &c.o
	info, err := c.fr.Info(ctx, frontier.InfoFilter{CrawlID: o.crawlID})
	if err != nil {
		tool.Printf("%v", err)
		return cli.ExitFailure, true
	}
	var pending int64
	for _, ci := range info.Crawls {
		pending += ci.Pending + ci.InFlight
	}
	s := &c.seed
	seenBefore := s.queued == 0 && s.refused[frontier.ReasonDuplicate] == s.valid()
	switch {
	case pending > 0:
	case s.valid() == 0:
		tool.Printf("%s: no valid seed (%d line(s) read%s), and crawl %q has nothing queued: nothing to crawl",
			seedsName(o.seeds), s.read, s.rejectedNote(), o.crawlID)
		return cli.ExitFailure, true
	case s.queued == 0 && !seenBefore:
		tool.Printf("%s: no seed could be queued (%s), and crawl %q has nothing queued: nothing to crawl",
			seedsName(o.seeds), joinCounts(s.refused), o.crawlID)
		return cli.ExitFailure, true
	}
	stored, err := c.fr.SetCrawlMeta(ctx, o.crawlID, c.id.meta(c.start), false)
	if err == nil && len(c.id.conflicts(o.crawlID, stored)) > 0 {
		if !o.force {
			// Another run started the crawl in between, with other rules
			// or seeds.
			for _, msg := range c.id.conflicts(o.crawlID, stored) {
				tool.Printf("%s", msg)
			}
			return cli.ExitUsage, true
		}
		_, err = c.fr.SetCrawlMeta(ctx, o.crawlID, c.id.identityMeta(), true)
	}
	if err != nil {
		tool.Printf("%v", err)
		return cli.ExitFailure, true
	}
	switch {
	case pending > 0 || !seenBefore:
	case c.meta[metaLastFailure] != "":
		tool.Printf("crawl %q has nothing queued or in flight and its seeds were seen before, but its last run could fetch nothing (%s): %s",
			o.crawlID, c.meta[metaLastFailure], c.startOver())
		return cli.ExitFailure, true
	default:
		if !o.quiet {
			tool.Printf("crawl %q is complete: every seed was crawled before, and nothing is queued or in flight; %s",
				o.crawlID, c.startOver())
		}
		if s.rejected() > 0 {
			return cli.ExitPartial, true
		}
		return cli.ExitOK, true
	}
	return cli.ExitOK, false
}

// identity is what a crawl was started with: its rules, seeds and export.
type identity struct {
	rules, rulesSHA string
	seeds, seedsSHA string
	seedCount       int
	out             string
}

// identityMeta is the metadata --force replaces.
func (id identity) identityMeta() map[string]string {
	return map[string]string{
		"rules": id.rules, "rules_sha256": id.rulesSHA,
		"seeds": id.seeds, "seeds_sha256": id.seedsSHA, "seeds_count": strconv.Itoa(id.seedCount),
		"out": id.out,
	}
}

// meta is the metadata a new crawl starts with.
func (id identity) meta(start time.Time) map[string]string {
	m := id.identityMeta()
	m["started_at"] = start.UTC().Format(time.RFC3339)
	return m
}

// conflicts says how this run differs from what crawlID was started with.
func (id identity) conflicts(crawlID string, m map[string]string) []string {
	var out []string
	if sha := m["rules_sha256"]; sha != "" && sha != id.rulesSHA {
		out = append(out, fmt.Sprintf("crawl %q was started with rules %s (sha256 %s…); this run has other rules (%s, sha256 %s…): use --force to go on with them, or another --crawlid",
			crawlID, m["rules"], short(sha), id.rules, short(id.rulesSHA)))
	}
	if sha := m["seeds_sha256"]; sha != "" && sha != id.seedsSHA {
		out = append(out, fmt.Sprintf("crawl %q was started with seeds %s (%s seed(s), sha256 %s…); this run has other seeds (%s: %d seed(s), sha256 %s…): use --force to add them to the crawl, or another --crawlid",
			crawlID, seedsName(m["seeds"]), m["seeds_count"], short(sha), seedsName(id.seeds), id.seedCount, short(id.seedsSHA)))
	}
	return out
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func short(sha string) string { return sha[:min(len(sha), 8)] }

func seedsName(s string) string {
	if s == "-" {
		return "<stdin>"
	}
	return s
}

func outName(out string) string {
	if out == "-" {
		return "stdout"
	}
	return out
}

// describeOpen shortens the error of a file that cannot be read.
func describeOpen(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// openDSN opens the frontier at dsn with s's settings, creating an SQLite
// file (the crawl pushes its seeds first).
func (s store) openDSN(ctx context.Context, tool *cli.Tool, dsn string) (frontier.Frontier, int) {
	s.db, s.redis = "", ""
	if dedupe.IsRedisURL(dsn) {
		s.redis = dsn
	} else {
		s.db = dsn
	}
	return s.open(ctx, tool, true)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '@' || r == ',' || r == '+' || r == '=' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
