package crawl

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// publishEvery publishes the stats of the loop's tools to the crawl's
// frontier every --publish-every, for cqueue serve, from the stats files
// the tools rewrite that often (or more often, for the progress line):
// the tools themselves do nothing more. Each round is one write (one
// transaction on SQLite, one script call on Redis) of a snapshot per
// tool, named by its process; the store is opened at the first round. The
// returned function stops it, once the tools have exited, and publishes
// their last snapshots with their exit statuses.
func (c *crawl) publishEvery(stages []*stage) (stop func()) {
	every := c.o.publishEvery
	if every <= 0 {
		return func() {}
	}
	host, _ := os.Hostname()
	p := &statspub.Publisher{
		// A write waits for the store as the loop's own writers do (the
		// busy timeout), the last one at most 2s.
		Every: every, Timeout: c.o.store.BusyTimeout,
		Open: func(ctx context.Context, timeout time.Duration) (statspub.Sink, error) {
			return toolstats.Open(ctx, c.o.dsn, toolstats.Options{BusyTimeout: timeout, Prefix: c.o.store.Opts.Prefix, Getenv: c.getenv})
		},
		Snapshots: func(now time.Time, final bool) ([]statspub.Snapshot, error) {
			return c.snapshots(stages, host, now, final), nil
		},
		Warn: func(err error, _ bool) {
			c.tool.Printf("warning: publishing the tools' stats to the frontier: %v (the crawl goes on)", err)
		},
	}
	return p.Start()
}

// snapshots are the tools' stats as last written, one per tool that
// wrote any; with final, with each one's exit status.
func (c *crawl) snapshots(stages []*stage, host string, now time.Time, final bool) []statspub.Snapshot {
	var out []statspub.Snapshot
	for _, s := range stages {
		b, err := os.ReadFile(s.stats)
		st, serr := os.Stat(s.stats)
		if err != nil || serr != nil || !json.Valid(b) || !s.started() {
			continue
		}
		// At is when the tool wrote the stats, so that rates between two
		// snapshots are right whatever the phase of the two periods.
		at := st.ModTime()
		if at.After(now) {
			at = now
		}
		snap := statspub.Snapshot{CrawlID: c.o.crawlID, Tool: s.name, Host: host, PID: s.pid(),
			At: at.UTC(), EveryMS: c.o.publishEvery.Milliseconds(), Stats: json.RawMessage(compact(b))}
		if final {
			code, _ := s.status()
			snap.Exited, snap.Exit = true, &code
		}
		out = append(out, snap)
	}
	return out
}

// compact removes the indentation of a stats file.
func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}
