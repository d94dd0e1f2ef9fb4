package cqueue

import (
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// budgetInfo is a crawl's budget in cqueue info: its limits (absent: none)
// and what it has counted.
type budgetInfo struct {
	MaxPages  int64  `json:"max_pages,omitempty"`
	MaxItems  int64  `json:"max_items,omitempty"`
	MaxTime   string `json:"max_time,omitempty"`
	MaxErrors int64  `json:"max_errors,omitempty"`
	MaxIdle   string `json:"max_idle,omitempty"`
	frontier.CrawlCounts
	StartedAt string `json:"started_at,omitempty"`
}

// withBudget adds the budget of a crawl whose metadata is m to its row of
// cqueue info: a crawl that reached it is stopped, with the reason.
func withBudget(row *crawlInfoRound, m map[string]string, now time.Time) {
	b := frontier.BudgetOf(m)
	if b.IsZero() {
		return
	}
	bm := b.Meta()
	row.Budget = &budgetInfo{MaxPages: b.MaxPages, MaxItems: b.MaxItems, MaxTime: bm[frontier.MetaMaxTime], MaxErrors: b.MaxErrors,
		MaxIdle: bm[frontier.MetaMaxIdle], CrawlCounts: frontier.CountsOf(m), StartedAt: m[frontier.MetaBudgetStarted]}
	why := m[frontier.MetaBudgetReached]
	if why == "" {
		why = frontier.BudgetReached(m, now)
	}
	if why != "" && row.State == frontier.StateActive {
		row.State, row.StopReason = frontier.StateStopped, why
	}
}
