package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// A command run with --stats-to STORE publishes its stats to the crawl's
// store (the frontier's SQLite file or Redis) every --stats-every (5s by
// default), through statspub.Publisher and the Tool's OpenStats (its
// Command's, given by the tool package: cli links no database driver);
// cqueue serve shows them. A store that cannot be opened or written is
// said once on stderr and never fails the command; a write waits at most
// the store's default busy timeout (5s), so a slow store delays only the
// next snapshot, never a record; at the end a write under way is given
// up, and the last one waits at most 2s.

// publishEvery is the publishing period: --stats-every (at least
// minPublishEvery), else statspub.DefaultEvery.
func (t *Tool) publishEvery() time.Duration {
	if t.StatsEvery > 0 {
		return max(t.StatsEvery, minPublishEvery)
	}
	return statspub.DefaultEvery
}

// minPublishEvery bounds the writes to the store, whatever --stats-every
// asks of the stats file.
const minPublishEvery = 100 * time.Millisecond

// statsToName is StatsTo for messages: a Redis URL without its password.
func (t *Tool) statsToName() string {
	return storeurl.Redact(t.StatsTo)
}

// toolName is the command as the snapshots name it: "cfetch", "cqueue pop".
func (t *Tool) toolName() string {
	if t.Sub != "" {
		return t.Name + " " + t.Sub
	}
	return t.Name
}

// errNoPublisher is said when a command given --stats-to cannot publish.
var errNoPublisher = fmt.Errorf("this command does not publish its stats")

// startPublisher starts publishing to StatsTo, once.
func (t *Tool) startPublisher() {
	if t.StatsTo == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopPub != nil {
		return
	}
	host, _ := os.Hostname()
	every := t.publishEvery()
	var exit *int // set by finishPublisher before the last round
	p := &statspub.Publisher{
		Every: every, Now: t.Stats.now,
		Open: func(ctx context.Context, timeout time.Duration) (statspub.Sink, error) {
			if t.OpenStats == nil {
				return nil, errNoPublisher
			}
			return t.OpenStats(ctx, t.StatsTo, timeout, t.getenv)
		},
		Snapshots: func(now time.Time, final bool) ([]statspub.Snapshot, error) {
			b, err := json.Marshal(t.statsJSON())
			if err != nil {
				return nil, err
			}
			s := statspub.Snapshot{CrawlID: t.StatsCrawlID, Tool: t.toolName(), Host: host, PID: os.Getpid(),
				At: now.UTC(), EveryMS: every.Milliseconds(), Stats: b}
			if final && exit != nil {
				s.Exited, s.Exit = true, exit
			}
			return []statspub.Snapshot{s}, nil
		},
		Warn: func(err error, final bool) {
			if final {
				t.Printf("warning: --stats-to %s: %v", t.statsToName(), fmt.Errorf("the last stats: %w", err))
				return
			}
			t.Printf("warning: --stats-to %s: %v (said once: the command goes on, and publishes again every %s)", t.statsToName(), err, every)
		},
	}
	stop := p.Start()
	t.stopPub = func(code int) { exit = &code; stop() }
}

// finishPublisher stops the periodic writes and publishes the last
// snapshot, with the exit status.
func (t *Tool) finishPublisher(code int) {
	t.mu.Lock()
	stop := t.stopPub
	t.mu.Unlock()
	if stop != nil {
		stop(code)
	}
}
