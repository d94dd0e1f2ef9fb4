package frontier

import (
	"context"
	"time"
)

// Crawl metadata keys cqueue crawl keeps (see SetCrawlMeta). Like
// MetaPaused they are conventions between programs: nothing in the
// frontier reads them.
const (
	// MetaRound is the crawl's round: set on a crawl run by cqueue crawl.
	MetaRound = "round"
	// MetaStopped is when a crawl run by cqueue crawl was stopped (RFC
	// 3339), empty once it is resumed or started over.
	MetaStopped = "stopped_at"
)

// StopCrawl stops crawl crawlID as cqueue stop and cqueue serve's Stop
// do. A crawl run by cqueue crawl (its metadata has MetaRound) keeps its
// queue: it is paused (MetaPaused) and marked stopped (MetaStopped), so
// that its run ends gracefully and the next run of cqueue crawl can resume
// it or start its next round over; kept is true and purged 0. Any other
// crawl is stopped by Frontier.Stop: its queued requests purged, its later
// pushes refused.
func StopCrawl(ctx context.Context, fr Frontier, crawlID string, now time.Time) (purged int, kept bool, err error) {
	m, err := fr.CrawlMeta(ctx, crawlID)
	if err != nil {
		return 0, false, err
	}
	if m[MetaRound] == "" {
		n, err := fr.Stop(ctx, crawlID, now)
		return n, false, err
	}
	_, err = fr.SetCrawlMeta(ctx, crawlID, map[string]string{MetaStopped: now.UTC().Format(time.RFC3339), MetaPaused: "1"}, true)
	return 0, err == nil, err
}
