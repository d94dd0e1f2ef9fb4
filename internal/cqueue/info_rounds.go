package cqueue

import (
	"context"
	"strconv"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// crawlInfoRound is a crawl in cqueue info: the frontier's counts and,
// for a crawl cqueue crawl runs, its round.
type crawlInfoRound struct {
	frontier.CrawlInfo
	Round          int    `json:"round,omitempty"`
	RoundState     string `json:"round_state,omitempty"`
	RoundStartedAt string `json:"round_started_at,omitempty"`
	// StopReason says why a crawl stopped on its budget (state stopped).
	StopReason string      `json:"stop_reason,omitempty"`
	Budget     *budgetInfo `json:"budget,omitempty"`
}

// withRounds adds each crawl's round, from its metadata.
func withRounds(ctx context.Context, fr frontier.Frontier, crawls []frontier.CrawlInfo, now time.Time) ([]crawlInfoRound, error) {
	out := make([]crawlInfoRound, 0, len(crawls))
	for _, ci := range crawls {
		m, err := fr.CrawlMeta(ctx, ci.CrawlID)
		if err != nil {
			return nil, err
		}
		r, _ := strconv.Atoi(m[frontier.MetaRound])
		row := crawlInfoRound{CrawlInfo: ci, Round: r, RoundState: m[frontier.MetaRoundState], RoundStartedAt: m[frontier.MetaRoundStarted(r)]}
		withBudget(&row, m, now)
		out = append(out, row)
	}
	return out, nil
}
