package crawl

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// A crawl runs in rounds. The first run of cqueue crawl is round 1; a run
// that finds the last round complete (nothing queued or in flight when it
// ended) starts the next, whose requests carry "round": N and have a seen
// set of their own (frontier.SeenNamespace), so every page is fetched again
// once; a run that finds it unfinished resumes it. The round and when each
// began are kept in the crawl's metadata.
const (
	metaRound      = frontier.MetaRound      // the current round, 1, 2, …
	metaRoundState = frontier.MetaRoundState // running or complete
)

// metaRoundStarted is the metadata key of when round r began (RFC 3339).
var metaRoundStarted = frontier.MetaRoundStarted

// ExitRunning is cqueue crawl's exit status when another run of the same
// crawl holds its run lock.
const ExitRunning = 4

// Run lock timing: the lock is renewed every lockBeat and lasts lockTTL
// (the consumers' heartbeat and timeout), so a run that died without
// releasing it (on another machine) holds it at most lockTTL; on this
// machine a dead holder's lock is taken at once.
const (
	lockBeat = 5 * time.Second
	lockTTL  = frontier.DefaultConsumerTimeout
)

// lockRun takes the crawl's run lock on this machine and keeps it renewed
// until the returned release is called; with another run on this machine
// holding it, its error says so, with the exit status ExitRunning. A run
// on another machine has a lock of its own: it joins the crawl.
func (c *crawl) lockRun(ctx context.Context) (release func(), err error) {
	holder := frontier.LockHolder()
	cur, ok, err := c.fr.LockCrawl(ctx, c.o.crawlID, holder, "", lockTTL, c.now())
	if err == nil && !ok && frontier.LockHolderGone(cur) {
		// The last run on this machine ended without releasing its
		// lock: it was killed (beforeLoop says so).
		c.killedRun = frontier.DescribeLockHolder(cur)
		cur, ok, err = c.fr.LockCrawl(ctx, c.o.crawlID, holder, cur, lockTTL, c.now())
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, cli.Errorf(ExitRunning, "crawl %q is already running on this machine (%s holds its lock in %s): this run exits; the lock expires %s after that run stops renewing it",
			c.o.crawlID, frontier.DescribeLockHolder(cur), storeurl.Redact(c.o.dsn), lockTTL)
	}
	stop := cli.Every(lockBeat, func() {
		if _, ok, err := c.fr.LockCrawl(ctx, c.o.crawlID, holder, "", lockTTL, c.now()); err == nil && !ok {
			c.tool.Printf("warning: crawl %q: another run took its lock (this one did not renew it in %s)", c.o.crawlID, lockTTL)
		}
		c.checkState(ctx)
	})
	return func() {
		stop()
		if err := c.fr.UnlockCrawl(ctx, c.o.crawlID, holder); err != nil {
			c.tool.Printf("%v", err)
		}
	}, nil
}

// startRound resumes the crawl's round, or starts the next one when the
// last is complete and nothing of the crawl is queued or in flight.
func (c *crawl) startRound(ctx context.Context) error {
	meta := c.meta
	round, _ := strconv.Atoi(meta[metaRound])
	now := c.now().UTC()
	set := map[string]string{}
	switch {
	case round < 1:
		round = 1
		set[metaRound] = "1"
		set[metaRoundState] = "running"
		started := meta["started_at"]
		if started == "" {
			started = now.Format(time.RFC3339)
		}
		set[metaRoundStarted(1)] = started
	case meta[metaRoundState] == "complete":
		info, err := c.fr.Info(ctx, frontier.InfoFilter{CrawlID: c.o.crawlID})
		if err != nil {
			return err
		}
		var pending int64
		for _, ci := range info.Crawls {
			pending += ci.Pending + ci.InFlight
		}
		if pending == 0 {
			round++
			set[metaRound] = strconv.Itoa(round)
			set[metaRoundStarted(round)] = now.Format(time.RFC3339)
			c.newRound = true
		}
		set[metaRoundState] = "running"
	}
	if len(set) > 0 {
		m, err := c.fr.SetCrawlMeta(ctx, c.o.crawlID, set, true)
		if err != nil {
			return err
		}
		c.meta = m
	}
	c.round = round
	c.resumes = meta[metaRound] != "" && !c.newRound
	c.unknown = meta[metaRound] == "" && meta["started_at"] == ""
	return nil
}

// takeBackRound takes back the round this run began, when the run turns
// out to have nothing to crawl in it (every seed fresh, or refused): the
// last round stays the crawl's, complete, as if the run had begun none.
// (The run says a round begins only once it crawls it: beforeLoop.) err
// is the run's outcome, returned unless taking the round back fails.
func (c *crawl) takeBackRound(ctx context.Context, err error) error {
	if !c.newRound {
		return err
	}
	prev := c.round - 1
	m, merr := c.fr.SetCrawlMeta(ctx, c.o.crawlID, map[string]string{
		metaRound: strconv.Itoa(prev), metaRoundState: "complete", metaRoundStarted(c.round): "",
	}, true)
	if merr != nil {
		if err != nil {
			c.tool.Report(err)
		}
		return merr
	}
	c.meta, c.round, c.newRound = m, prev, false
	return err
}

// endRound marks the round complete, so that the next run starts a new
// one.
func (c *crawl) endRound(ctx context.Context) error {
	_, err := c.fr.SetCrawlMeta(ctx, c.o.crawlID, map[string]string{
		metaRoundState: "complete",
		fmt.Sprintf("round_%d_finished_at", c.round): c.now().UTC().Format(time.RFC3339),
	}, true)
	return err
}

// bytesText is n bytes for a message: 2.4 MB, 512 B.
func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// dbOutTable is the table of an OUT that is a database table
// (sqlite:FILE?table=T, postgres://…?table=T), or "".
func dbOutTable(out string) string {
	if !strings.HasPrefix(out, "sqlite:") && !strings.HasPrefix(out, "postgres://") && !strings.HasPrefix(out, "postgresql://") {
		return ""
	}
	_, q, ok := strings.Cut(out, "?")
	if !ok {
		return ""
	}
	v, err := url.ParseQuery(q)
	if err != nil {
		return ""
	}
	return v.Get("table")
}
