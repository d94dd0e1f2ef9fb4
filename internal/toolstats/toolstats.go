// Package toolstats keeps the latest stats of each running tool of a
// crawl in the crawl's store — the frontier's SQLite file or its Redis
// (Cluster) prefix — so that cqueue serve, which reads only the store,
// shows the tools attached to a crawl, their stats and the rates they
// imply (items/s, HTTP errors/s), on every machine sharing the frontier.
//
// # Model
//
// A tool publishes a Snapshot of its stats every period (cli's
// --stats-to STORE with --stats-every, 5s by default; cqueue crawl does
// it for its loop's tools). Each Put replaces the one snapshot of its
// process, named by ID: (tool, host, pid, crawl). It is one small write:
// on SQLite an upsert of one row in a short transaction of its own,
// waiting at most the busy timeout; on Redis one script call that SETs
// the snapshot with an expiry and notes it in an index, every key under
// the frontier's key prefix (its hash tag on a cluster, so in the
// frontier's slot). A snapshot expires (Snapshot.Expires): three periods
// (at least 15s) after it was written, so a tool that was killed vanishes
// by itself; a tool's last snapshot, written when it exits, says so and
// lives a minute. List returns the snapshots not yet expired at a time.
//
// Every method takes the time; nothing reads the clock. A Store is safe
// for concurrent use.
package toolstats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/crawlutils/crawlutils/internal/statspub"

	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// Store is where snapshots are kept: the frontier's store.
type Store interface {
	// Put stores snaps, each replacing the snapshot of the same ID, and
	// drops those expired at now: one transaction (SQLite) or one
	// script call (Redis).
	Put(ctx context.Context, now time.Time, snaps ...statspub.Snapshot) error
	// List returns the snapshots not expired at now, sorted by ID.
	List(ctx context.Context, now time.Time) ([]statspub.Snapshot, error)
	// Close releases the store's connections.
	Close() error
}

// Options configure Open.
type Options struct {
	// BusyTimeout (SQLite) is how long a Put waits for another process's
	// write lock; 0 means storage.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Getenv (Redis) reads the environment (storage.RedisRetryEnv); nil
	// reads the process's.
	Getenv func(string) string
	// Prefix (Redis) is the frontier's key prefix option (see
	// frontier.Options.Prefix): "" means the URL's prefix=, else the
	// default.
	Prefix string
}

// OpenSink is Open as a Opener: what a command that publishes
// its stats (--stats-to) is given (cli.Command.OpenStats).
func OpenSink(ctx context.Context, dsn string, timeout time.Duration, getenv func(string) string) (statspub.Sink, error) {
	return Open(ctx, dsn, Options{BusyTimeout: timeout, Getenv: getenv})
}

// ErrNoStore is returned by Open for an SQLite file that does not exist:
// the frontier is made by cqueue push, never by a tool's stats.
var ErrNoStore = errors.New("no such frontier")

// Open opens the store dsn names: a Redis URL (redis://, rediss://,
// redis+cluster://…) or the path of the frontier's SQLite file, which must
// exist.
func Open(ctx context.Context, dsn string, o Options) (Store, error) {
	if storeurl.IsRedisURL(dsn) {
		return openRedis(ctx, dsn, o)
	}
	if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (cqueue push makes one)", dsn, ErrNoStore)
	}
	return openSQLite(ctx, dsn, o)
}

// decode parses stored documents, skipping any that cannot be read (a
// newer release's, or damaged): a monitor shows what it can.
func decode(docs []string) []statspub.Snapshot {
	out := make([]statspub.Snapshot, 0, len(docs))
	for _, d := range docs {
		var s statspub.Snapshot
		if json.Unmarshal([]byte(d), &s) == nil {
			out = append(out, s)
		}
	}
	return out
}
