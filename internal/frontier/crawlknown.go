package frontier

import "context"

// MetaPausedAt is when a crawl was paused (RFC 3339), set with MetaPaused
// by cqueue serve's Pause and cleared by its Resume: what cqueue crawl
// tells when a run finds its crawl paused.
const MetaPausedAt = "paused_at"

// CrawlKnown reports whether the frontier knows crawl crawlID: Info lists
// it (requests were pushed to it, or it was stopped), or it has metadata
// (cqueue crawl ran it). Setting a flag such as MetaPaused on a crawl it
// does not know would make a crawl of that name, unseen by Info, that a
// later run finds paused.
func CrawlKnown(ctx context.Context, fr Frontier, crawlID string) (bool, error) {
	info, err := fr.Info(ctx, InfoFilter{CrawlID: crawlID})
	if err != nil {
		return false, err
	}
	for _, c := range info.Crawls {
		if c.CrawlID == crawlID {
			return true, nil
		}
	}
	m, err := fr.CrawlMeta(ctx, crawlID)
	return len(m) > 0, err
}
