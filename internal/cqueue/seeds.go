package cqueue

import (
	"context"
	"io"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// Seeds is how cqueue crawl pushes its seeds: as cqueue push would with
// --crawlid, --appid and --round and the queue flags of s.
type Seeds struct {
	CrawlID, AppID string
	Round          int
	Store          Store
	Now            func() time.Time
	// Meta is the crawl's metadata, for --refresh's fresh rounds.
	Meta map[string]string
	// Discover is the discover field of seeds that have none (--discover).
	Discover []string
	// Again queues again, each once, the seeds (and the files discovery
	// adds for their hosts) that the duplicate filter refuses: they were
	// seen in their round, but the run that fetched them could fetch
	// nothing, so they are not done. They are pushed with dont_filter and
	// counted as queued, and also as "again"; what is fresh (--refresh),
	// stopped or refused by the crawl policy stays refused.
	Again bool
}

// PushSeeds queues the requests (or bare URLs) r reads into fr as cqueue
// push does, reporting each bad line with its number through t and going
// on with the rest; t's stats count them as push's do. Its error has been
// reported through t already.
func PushSeeds(ctx context.Context, t *cli.Tool, fr frontier.Frontier, r *ndjson.Reader, s Seeds) error {
	d := &seedDefaults{crawlID: s.CrawlID, appID: s.AppID, round: s.Round, discover: s.Discover}
	p := &pusher{tool: t, f: fr, defaults: d, mode: s.Store.KeyMode(),
		out: ndjson.NewWriter(io.Discard), max: defaultBatch, now: s.Now, refresh: s.Store.Refresh,
		rounds: map[string]map[string]string{s.CrawlID: s.Meta}}
	if s.Again {
		p.again = map[dedupe.Key]bool{}
	}
	p.run(ctx, r)
	return p.err
}
