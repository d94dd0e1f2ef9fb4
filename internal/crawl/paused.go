package crawl

import (
	"context"
	"fmt"
	"sync"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// A crawl is paused by cqueue serve's Pause (frontier.MetaPaused, with
// frontier.MetaPausedAt). A run under way when the pause is set waits,
// fetching nothing, until the Resume, and says so on stderr when the pause
// begins and ends. A run that begins while its crawl is paused does
// nothing and exits ExitPaused, saying since when and how to resume: a
// pause forgotten does not leave a cron run waiting unseen, holding the
// crawl's lock, nor is it undone without being asked (--resume clears
// it). A run that ends while its crawl is paused says so in its account.

// ExitPaused is cqueue crawl's exit status for a run that began while its
// crawl was paused (cqueue serve's Pause) and so did nothing.
const ExitPaused = 6

// pausedSince says since when a crawl whose metadata is m is paused, or ""
// when it is not (a stopped crawl is paused too, but is told as stopped).
func pausedSince(m map[string]string) string {
	if m[frontier.MetaPaused] != "1" || m[frontier.MetaStopped] != "" {
		return ""
	}
	if at := m[frontier.MetaPausedAt]; at != "" {
		return at
	}
	return "an unknown time"
}

// howToResume is how a paused crawl goes on.
const howToResume = "resume it with cqueue serve's Resume (or POST /api/v1/resume {\"crawlid\":…}), or run the same command with --resume"

// checkPaused is the start of a run of a paused crawl: with --resume it
// clears the pause, and without it refuses to run, saying how to go on.
func (c *crawl) checkPaused(ctx context.Context) error {
	o := &c.o
	since := pausedSince(c.meta)
	if since == "" {
		return nil
	}
	if !o.resume {
		queued, inFlight, err := c.leftOf(ctx)
		if err != nil {
			return err
		}
		return cli.Errorf(ExitPaused, "crawl %q is paused (cqueue serve's Pause) since %s, with %d request(s) queued and %d in flight: this run does nothing. To go on, %s",
			o.crawlID, since, queued, inFlight, howToResume)
	}
	m, err := c.fr.SetCrawlMeta(ctx, o.crawlID, map[string]string{frontier.MetaPaused: "0", frontier.MetaPausedAt: ""}, true)
	if err != nil {
		return err
	}
	c.meta = m
	if !o.quiet {
		c.tool.Printf("crawl %q: paused since %s, resumed (--resume)", o.crawlID, since)
	}
	return nil
}

// pauseTeller says on stderr when the crawl of a run under way is paused
// and when it is resumed, as the run's watch reads its metadata.
type pauseTeller struct {
	mu     sync.Mutex
	paused bool
}

func (p *pauseTeller) see(c *crawl, m map[string]string) {
	since := pausedSince(m)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case since != "" && !p.paused:
		c.tool.Printf("crawl %q is paused (cqueue serve's Pause) since %s: fetching nothing until it is resumed; %s", c.o.crawlID, since, "resume it with cqueue serve's Resume (or POST /api/v1/resume)")
	case since == "" && p.paused:
		c.tool.Printf("crawl %q is resumed", c.o.crawlID)
	}
	p.paused = since != ""
}

// markPaused makes the account of a run that ended while its crawl is
// paused say so.
func (c *crawl) markPaused(ctx context.Context, a *crawlAccount) {
	m, err := c.fr.CrawlMeta(ctx, c.o.crawlID)
	if err != nil {
		return
	}
	if since := pausedSince(m); since != "" {
		a.PausedAt = since
	}
}

// pausedLine is the account's line for a run that ended paused.
func (c *crawl) pausedLine(a crawlAccount) string {
	return fmt.Sprintf("the crawl is paused (cqueue serve's Pause) since %s: the next run does nothing (exit %d) until then; %s", a.PausedAt, ExitPaused, howToResume)
}
