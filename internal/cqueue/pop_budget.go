package cqueue

import (
	"context"
	"fmt"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// Budgets: a crawl's budget (frontier.Budget) is kept in its metadata, and
// its counts are added by cqueue push as pages are acked, by every loop
// sharing the crawl. Pop reads the budgets of the crawls it serves before
// each turn (one small read per budgeted crawl, and the frontier's counts
// for max_pages): it hands out no more than the pages left (max_pages less
// the pages counted and those in flight), so loops sharing a crawl
// overshoot it by no more than what they pop at the same moment; and once
// a limit is reached it hands out nothing more, records why
// (frontier.MetaBudgetReached), and ends, as Scrapy's closespider does,
// once the requests it holds in flight are settled. What is queued stays
// queued, for a run given a larger budget. Like a pause, a reached budget
// stops pop for every crawl it serves.
//
// Pop learns which crawls it serves from what it hands out: the first
// batch with a request of a crawl it has not served is checked at once,
// and what it holds beyond the crawl's budget is given back to the queue,
// unfetched and not counted against it.

// budgetWatch is pop's view of the budgets of the crawls it serves.
type budgetWatch struct {
	seen     map[string]bool // the crawls whose metadata was read
	budgeted []string        // those with a budget
	reached  string          // why pop stopped handing out ("" while it hands out)
	told     bool
}

// budgetGate is pop's budget check before a turn: it returns how many
// requests pop may hand out (n, or fewer), and end when pop should end
// now: a budget is reached and nothing it holds is in flight (or it does
// not follow).
func (p *popper) budgetGate(ctx context.Context, n int) (int, bool, error) {
	b := &p.budget
	if b.reached == "" {
		for _, id := range b.budgeted {
			m, err := p.fr.CrawlMeta(ctx, id)
			if err != nil {
				return 0, false, err
			}
			if why := frontier.BudgetReached(m, p.now()); why != "" {
				if err := p.reach(ctx, id, why); err != nil {
					return 0, false, err
				}
				break
			}
			left, err := p.pagesLeft(ctx, m, 0)
			if err != nil {
				return 0, false, err
			}
			if left >= 0 {
				n = min(n, left)
			}
		}
	}
	if b.reached == "" {
		return n, false, nil
	}
	if !p.o.follow {
		return 0, true, nil
	}
	held, err := p.fr.Beat(ctx, p.consumer, p.o.lease, p.now())
	if err != nil {
		return 0, false, err
	}
	p.held.Store(int64(held))
	return 0, held == 0, nil
}

// pagesLeft is how many more requests of the crawl whose metadata is m pop
// may hand out, not counting mine of those in flight; -1: no limit.
func (p *popper) pagesLeft(ctx context.Context, m map[string]string, mine int) (int, error) {
	if frontier.BudgetOf(m).MaxPages <= 0 {
		return -1, nil
	}
	c, err := p.fr.Counts(ctx)
	if err != nil {
		return 0, err
	}
	return int(frontier.PagesLeft(m, c.InFlight-int64(mine))), nil
}

// reach stops pop handing out: crawl id's budget is reached.
func (p *popper) reach(ctx context.Context, id, why string) error {
	b := &p.budget
	b.reached = fmt.Sprintf("crawl %q: stopped: %s", id, why)
	if _, err := p.fr.SetCrawlMeta(ctx, id, map[string]string{frontier.MetaBudgetReached: why}, true); err != nil {
		return err
	}
	if !b.told && !p.tool.Quiet {
		b.told = true
		p.tool.Printf("%s: handing out nothing more; ending once the requests in flight are settled (what is queued is kept: a larger budget goes on with it)", b.reached)
	}
	return nil
}

// budgetAfter checks the crawls of a batch pop had not served before: the
// requests of one whose budget is reached, or beyond its pages left, are
// given back to the queue at once (unfetched, no retry counted). It
// returns the requests to hand out.
func (p *popper) budgetAfter(ctx context.Context, ls []frontier.Leased) ([]frontier.Leased, error) {
	b := &p.budget
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	perCrawl := map[string]int{}
	for _, l := range ls {
		perCrawl[l.CrawlID]++
	}
	allow := map[string]int{}
	for id, k := range perCrawl {
		if b.seen[id] {
			continue
		}
		b.seen[id] = true
		m, err := p.fr.CrawlMeta(ctx, id)
		if err != nil {
			return ls, err
		}
		if frontier.BudgetOf(m).IsZero() {
			continue
		}
		b.budgeted = append(b.budgeted, id)
		if why := frontier.BudgetReached(m, p.now()); why != "" {
			if err := p.reach(ctx, id, why); err != nil {
				return ls, err
			}
			allow[id] = 0
			continue
		}
		left, err := p.pagesLeft(ctx, m, k)
		if err != nil {
			return ls, err
		}
		if left >= 0 && left < k {
			allow[id] = left
		}
	}
	if len(allow) == 0 {
		return ls, nil
	}
	var keep []frontier.Leased
	var back []string
	for _, l := range ls {
		if n, ok := allow[l.CrawlID]; ok {
			if n == 0 {
				back = append(back, l.Lease)
				continue
			}
			allow[l.CrawlID] = n - 1
		}
		keep = append(keep, l)
	}
	if len(back) > 0 {
		if _, err := p.fr.Apply(ctx, frontier.Batch{Releases: back}, p.now()); err != nil {
			return ls, err
		}
	}
	return keep, nil
}

// budgetPoll is how often pop --follow looks again while its budget
// leaves it nothing to hand out.
const budgetPoll = 50 * time.Millisecond
