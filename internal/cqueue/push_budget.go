package cqueue

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Budgets: push counts what each page of a crawl with a budget costs it
// (frontier.Budget), from the page's ack (cextract writes its crawlid, its
// items and its fetch_error): a page (an acked fetch), its items, or an
// error (a failed fetch, or a request a stage could not handle). It adds
// them to the crawl's counts in the frontier just before each batch is
// applied (a page is then counted before it leaves the flight, never
// after: a failed batch may be counted, a page handed out past the budget
// may not), so every loop sharing the crawl counts into the same figures, and
// cqueue pop stops handing out once they reach the budget.
//
// A request may carry a budget as crawl fields (max_pages, max_items,
// max_errors, max_time, max_idle; the times as durations, "1h30m", or
// seconds): push keeps it with its crawl, as cqueue crawl --max-pages
// does, and the counts start from then.

// budgetCheckEvery is how often push reads again whether a crawl has a
// budget (one set later by another process is counted from then on).
const budgetCheckEvery = 5 * time.Second

// budgetFields are the request fields of a budget, its metadata keys.
var budgetFields = []string{frontier.MetaMaxPages, frontier.MetaMaxItems, frontier.MetaMaxErrors, frontier.MetaMaxTime, frontier.MetaMaxIdle}

// budgetCounter is push's part of the budgets.
type budgetCounter struct {
	counts  map[string]*frontier.CrawlCounts // this batch's, by crawl
	known   map[string]budgetKnown           // whether a crawl has a budget
	budgets map[string]map[string]string     // budgets read from this batch's requests, by crawl
}

type budgetKnown struct {
	has  bool
	read time.Time
}

// note counts an ack in the batch.
func (b *budgetCounter) note(a record.Ack) {
	if b.counts == nil {
		b.counts = map[string]*frontier.CrawlCounts{}
	}
	c := b.counts[a.CrawlID]
	if c == nil {
		c = &frontier.CrawlCounts{}
		b.counts[a.CrawlID] = c
	}
	if a.Error != "" || a.FetchError != "" {
		c.Errors++
	} else {
		c.Pages++
	}
	c.Items += int64(max(a.Items, 0))
}

// requestBudget reads the budget fields of a request: nil when it has
// none; an error names the field that does not read.
func requestBudget(req *record.Request) (map[string]string, error) {
	var out map[string]string
	for _, k := range budgetFields {
		raw, ok := req.Extra[k]
		if !ok {
			continue
		}
		v, err := budgetValue(k, raw)
		if err != nil {
			return nil, fmt.Errorf("field %q: %v", k, err)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out, nil
}

// budgetValue reads one budget field as its metadata value: a count, or a
// time (a duration string or seconds); 0 is no limit ("").
func budgetValue(k string, raw json.RawMessage) (string, error) {
	var n json.Number
	var s string
	isTime := k == frontier.MetaMaxTime || k == frontier.MetaMaxIdle
	quoted := len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '"'
	switch {
	case !quoted && json.Unmarshal(raw, &n) == nil:
		if isTime {
			f, err := n.Float64()
			if err != nil || f < 0 || f > 1e9 {
				return "", fmt.Errorf("want seconds from 0 to 1e9, or a duration such as \"1h30m\"")
			}
			if f == 0 {
				return "", nil
			}
			return frontier.ShortDuration(time.Duration(f * float64(time.Second))), nil
		}
		v, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil || v < 0 {
			return "", fmt.Errorf("want a whole number, 0 or more")
		}
		if v == 0 {
			return "", nil
		}
		return strconv.FormatInt(v, 10), nil
	case isTime && json.Unmarshal(raw, &s) == nil:
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return "", fmt.Errorf("want a duration such as \"1h30m\", or seconds")
		}
		if d == 0 {
			return "", nil
		}
		return frontier.ShortDuration(d), nil
	}
	if isTime {
		return "", fmt.Errorf("want a duration such as \"1h30m\", or seconds")
	}
	return "", fmt.Errorf("want a whole number, 0 or more")
}

// keep notes the budget of a request queued in the batch.
func (b *budgetCounter) keep(crawlID string, budget map[string]string) {
	if b.budgets == nil {
		b.budgets = map[string]map[string]string{}
	}
	if b.budgets[crawlID] == nil {
		b.budgets[crawlID] = map[string]string{}
	}
	for k, v := range budget {
		b.budgets[crawlID][k] = v
	}
}

// flush stores the batch's budgets and adds its counts to the crawls that
// have a budget, before the batch is applied.
func (b *budgetCounter) flush(ctx context.Context, fr frontier.Frontier, now time.Time) error {
	at := frontier.BudgetTime(now)
	if b.known == nil {
		b.known = map[string]budgetKnown{}
	}
	for id, budget := range b.budgets {
		budget[frontier.MetaBudgetReached] = "" // told again if still reached
		if _, err := fr.SetCrawlMeta(ctx, id, budget, true); err != nil {
			return err
		}
		// The counts start with the first budget; a later one keeps them.
		if _, err := fr.SetCrawlMeta(ctx, id, map[string]string{frontier.MetaBudgetStarted: at, frontier.MetaIdleSince: at}, false); err != nil {
			return err
		}
		b.known[id] = budgetKnown{has: true, read: now}
	}
	clear(b.budgets)
	for id, c := range b.counts {
		has, err := b.hasBudget(ctx, fr, id, now)
		if err != nil {
			return err
		}
		if !has {
			continue
		}
		add := map[string]int64{}
		for k, n := range map[string]int64{frontier.MetaPages: c.Pages, frontier.MetaItems: c.Items, frontier.MetaErrors: c.Errors} {
			if n != 0 {
				add[k] = n
			}
		}
		var set map[string]string
		if c.Items > 0 {
			set = map[string]string{frontier.MetaIdleSince: at}
		}
		if _, err := fr.AddCrawlCounts(ctx, id, add, set); err != nil {
			return err
		}
	}
	clear(b.counts)
	return nil
}

// hasBudget says whether crawl id has a budget, read at most once every
// budgetCheckEvery.
func (b *budgetCounter) hasBudget(ctx context.Context, fr frontier.Frontier, id string, now time.Time) (bool, error) {
	if b.known == nil {
		b.known = map[string]budgetKnown{}
	}
	k, ok := b.known[id]
	if ok && now.Sub(k.read) < budgetCheckEvery && !now.Before(k.read) {
		return k.has, nil
	}
	m, err := fr.CrawlMeta(ctx, id)
	if err != nil {
		return false, err
	}
	k = budgetKnown{has: !frontier.BudgetOf(m).IsZero(), read: now}
	b.known[id] = k
	return k.has, nil
}
