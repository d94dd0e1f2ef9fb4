package crawl

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// A crawl's budget (Scrapy's CLOSESPIDER_* settings) is kept with the
// crawl in its frontier (frontier.Budget): --max-pages and the rest set
// it, a run without them keeps the one it has, and it is counted per
// round, by every loop sharing the crawl (cqueue push adds what each page
// costs; cqueue pop hands out nothing more once a limit is reached and
// ends when what it holds is settled). The run that reaches it reports
// the crawl stopped, with the reason, exit ExitStopped; a later run does
// nothing until it is given a larger budget, or --next-round.

// budgetFlags are cqueue crawl's budget flags.
type budgetFlags struct {
	b     frontier.Budget
	flags *cli.Flags // to tell which were given
}

// budgetFlagNames are the flags, by metadata key.
var budgetFlagNames = map[string]string{
	frontier.MetaMaxPages: "max-pages", frontier.MetaMaxItems: "max-items", frontier.MetaMaxTime: "max-time",
	frontier.MetaMaxErrors: "max-errors", frontier.MetaMaxIdle: "max-idle",
}

func (bf *budgetFlags) define(f *cli.Flags) {
	bf.flags = f
	f.Int64Var(&bf.b.MaxPages, "max-pages", 0, "stop the crawl once `N` pages are fetched (CLOSESPIDER_PAGECOUNT; kept with the crawl, 0: no limit)")
	f.Int64Var(&bf.b.MaxItems, "max-items", 0, "stop the crawl once `N` items are extracted (CLOSESPIDER_ITEMCOUNT)")
	f.DurationVar(&bf.b.MaxTime, "max-time", 0, "stop the crawl `DURATION` after its round began (CLOSESPIDER_TIMEOUT)")
	f.Int64Var(&bf.b.MaxErrors, "max-errors", 0, "stop the crawl once `N` fetches have failed (CLOSESPIDER_ERRORCOUNT)")
	f.DurationVar(&bf.b.MaxIdle, "max-idle", 0, "stop the crawl when no item has come for `DURATION` (CLOSESPIDER_TIMEOUT_NO_ITEM)")
}

// check refuses a negative limit.
func (bf *budgetFlags) check() error {
	b := bf.b
	for _, bad := range []struct {
		name string
		neg  bool
	}{{"max-pages", b.MaxPages < 0}, {"max-items", b.MaxItems < 0}, {"max-time", b.MaxTime < 0},
		{"max-errors", b.MaxErrors < 0}, {"max-idle", b.MaxIdle < 0}} {
		if bad.neg {
			return cli.Usagef("--%s: want 0 (no limit) or more", bad.name)
		}
	}
	return nil
}

// given is the budget's metadata for the flags given.
func (bf *budgetFlags) given() map[string]string {
	out := map[string]string{}
	for k, v := range bf.b.Meta() {
		if bf.flags != nil && bf.flags.Changed(budgetFlagNames[k]) {
			out[k] = v
		}
	}
	return out
}

// checkBudget is the start of a run, before its round: --next-round on a
// crawl stopped by its budget drops what its round left, so the next
// round begins.
func (c *crawl) checkBudget(ctx context.Context) error {
	why := c.meta[frontier.MetaBudgetReached]
	if why == "" || !c.o.nextRound || c.meta[frontier.MetaStopped] != "" {
		return nil
	}
	purged, err := c.fr.Stop(ctx, c.o.crawlID, c.now())
	if err == nil {
		err = c.fr.Unstop(ctx, c.o.crawlID, c.now())
	}
	if err != nil {
		return err
	}
	m, err := c.fr.SetCrawlMeta(ctx, c.o.crawlID, map[string]string{metaRoundState: "complete"}, true)
	if err != nil {
		return err
	}
	c.meta, c.leftRound = m, true
	if !c.o.quiet {
		c.tool.Printf("crawl %q: round %s, stopped (%s), is left as it was: %d request(s) it had queued are dropped (--next-round)", c.o.crawlID, m[metaRound], why, purged)
	}
	return nil
}

// startBudget sets the crawl's budget for this run, once its round is
// known: a new round counts from 0, the flags given replace their limits,
// and the idle time starts over. A budget reached already ends the run
// before anything is fetched (exit ExitStopped), saying how to raise it.
func (c *crawl) startBudget(ctx context.Context) error {
	o := &c.o
	now := frontier.BudgetTime(c.now())
	set := o.budget.given()
	if c.newRound || c.meta[frontier.MetaBudgetStarted] == "" {
		set[frontier.MetaPages], set[frontier.MetaItems], set[frontier.MetaErrors] = "0", "0", "0"
		set[frontier.MetaBudgetStarted] = now
	}
	if len(set) == 0 && frontier.BudgetOf(c.meta).IsZero() {
		return nil
	}
	set[frontier.MetaIdleSince] = now
	set[frontier.MetaBudgetReached] = ""
	m, err := c.fr.SetCrawlMeta(ctx, o.crawlID, set, true)
	if err != nil {
		return err
	}
	c.meta = m
	why := frontier.BudgetReached(m, c.now())
	if why == "" {
		if m[metaRoundState] == stateStopped && m[frontier.MetaStopped] == "" {
			// Stopped by its budget, now a larger one: the round goes on.
			c.meta, err = c.fr.SetCrawlMeta(ctx, o.crawlID, map[string]string{metaRoundState: "running"}, true)
		}
		return err
	}
	if _, err := c.fr.SetCrawlMeta(ctx, o.crawlID, map[string]string{frontier.MetaBudgetReached: why}, true); err != nil {
		return err
	}
	queued, inFlight, err := c.leftOf(ctx)
	if err != nil {
		return err
	}
	return cli.Errorf(ExitStopped, "crawl %q: stopped: %s in round %d (%s), with %d request(s) queued and %d in flight: this run does nothing. To go on, run the same command with %s; to begin the next round over from the seeds, run it with --next-round",
		o.crawlID, why, c.round, countsText(frontier.CountsOf(m)), queued, inFlight, raiseText(why, m))
}

// raiseText says how to raise the limit a crawl reached: "a larger
// --max-pages (--max-pages 2000; 0: no limit)".
func raiseText(why string, m map[string]string) string {
	key, _, _ := strings.Cut(why, " ")
	flag := budgetFlagNames[key]
	b, c := frontier.BudgetOf(m), frontier.CountsOf(m)
	var hint string
	switch key {
	case frontier.MetaMaxPages:
		hint = fmt.Sprintf("--max-pages %d", max(2*b.MaxPages, c.Pages+1))
	case frontier.MetaMaxItems:
		hint = fmt.Sprintf("--max-items %d", max(2*b.MaxItems, c.Items+1))
	case frontier.MetaMaxErrors:
		hint = fmt.Sprintf("--max-errors %d", max(2*b.MaxErrors, c.Errors+1))
	case frontier.MetaMaxTime:
		t, err := time.Parse(time.RFC3339Nano, m[frontier.MetaBudgetStarted])
		d := 2 * b.MaxTime
		if err == nil {
			d = max(d, time.Since(t).Round(time.Hour)+time.Hour)
		}
		hint = "--max-time " + frontier.ShortDuration(d)
	case frontier.MetaMaxIdle:
		hint = "--max-idle " + frontier.ShortDuration(2*b.MaxIdle) + "; the idle time starts over with each run"
	default:
		return "a larger budget"
	}
	return fmt.Sprintf("a larger --%s (%s; 0: no limit)", flag, hint)
}

func countsText(c frontier.CrawlCounts) string {
	return fmt.Sprintf("%s, %s, %s", plural(c.Pages, "page"), plural(c.Items, "item"), plural(c.Errors, "error"))
}

// markBudget makes the account of a run whose crawl stopped on its budget
// say so, and returns its exit status: ExitStopped, unless the run was
// interrupted, failed, or nothing is left (then the crawl is complete).
func (c *crawl) markBudget(ctx context.Context, a *crawlAccount, code int, interrupted bool) int {
	if interrupted || a.Complete || a.State == stateStopped || code != cli.ExitOK && code != cli.ExitPartial {
		return code
	}
	m, err := c.fr.CrawlMeta(ctx, c.o.crawlID)
	if err != nil || m[frontier.MetaBudgetReached] == "" {
		return code
	}
	why := m[frontier.MetaBudgetReached]
	if _, err := c.fr.SetCrawlMeta(ctx, c.o.crawlID, map[string]string{metaRoundState: stateStopped}, true); err != nil {
		c.tool.Printf("%v", err)
	}
	a.State, a.StopReason = stateStopped, why
	a.Budget = &budgetAccount{Limits: frontier.BudgetOf(m).String(), CrawlCounts: frontier.CountsOf(m)}
	return ExitStopped
}

// budgetAccount is the crawl's budget in the account of a run it stopped.
type budgetAccount struct {
	Limits string `json:"limits"`
	frontier.CrawlCounts
}

// budgetLine is the verdict of a run stopped by its budget.
func (c *crawl) budgetLine(a crawlAccount) string {
	m, _ := c.fr.CrawlMeta(context.Background(), c.o.crawlID)
	return fmt.Sprintf("stopped: %s (the crawl's round %d: %s): %d queued, %d in flight, kept; the next run does nothing until it is given %s, or --next-round (begin round %d over)",
		a.StopReason, a.Round, countsText(a.Budget.CrawlCounts), a.Left.Queued, a.Left.InFlight, raiseText(a.StopReason, m), a.Round+1)
}
