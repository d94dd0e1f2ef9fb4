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
	"strconv"
	"time"

	"github.com/crawlutils/crawlutils/internal/dedupe"
)

// Snapshot is one tool process's latest stats, as stored.
type Snapshot struct {
	// CrawlID is the crawl the tool works for, when it was told
	// (--stats-crawlid; cqueue crawl tells its tools); "" otherwise: the
	// tool is the frontier's, as its workers are.
	CrawlID string `json:"crawlid"`
	// Tool is the command: "cfetch", "cqueue pop", ….
	Tool string `json:"tool"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// At is when the stats were taken.
	At time.Time `json:"at"`
	// EveryMS is the publishing period, in milliseconds: the next
	// snapshot is due then.
	EveryMS int64 `json:"every_ms"`
	// Exited is set on the last snapshot of a process, with its exit
	// status.
	Exited bool `json:"exited,omitempty"`
	Exit   *int `json:"exit,omitempty"`
	// Stats is the tool's --stats FILE document (cli.StatsJSON).
	Stats json.RawMessage `json:"stats"`
}

// ID names the snapshot's process: a new snapshot with the same ID
// replaces the old one.
func (s Snapshot) ID() string {
	return s.Tool + " " + s.Host + " " + strconv.Itoa(s.PID) + " " + s.CrawlID
}

// Expires is when the snapshot is dropped: three periods after At (at
// least MinTTL) while the tool runs, so a tool killed without a word
// vanishes; ExitedTTL after the last snapshot of one that exited.
func (s Snapshot) Expires() time.Time {
	if s.Exited {
		return s.At.Add(ExitedTTL)
	}
	return s.At.Add(max(3*time.Duration(s.EveryMS)*time.Millisecond, MinTTL))
}

// The lifetimes of snapshots (see Snapshot.Expires).
const (
	MinTTL    = 15 * time.Second
	ExitedTTL = time.Minute
)

// DefaultEvery is the publishing period when none is given.
const DefaultEvery = 5 * time.Second

// Store is where snapshots are kept: the frontier's store.
type Store interface {
	// Put stores snaps, each replacing the snapshot of the same ID, and
	// drops those expired at now: one transaction (SQLite) or one
	// script call (Redis).
	Put(ctx context.Context, now time.Time, snaps ...Snapshot) error
	// List returns the snapshots not expired at now, sorted by ID.
	List(ctx context.Context, now time.Time) ([]Snapshot, error)
	// Close releases the store's connections.
	Close() error
}

// Options configure Open.
type Options struct {
	// BusyTimeout (SQLite) is how long a Put waits for another process's
	// write lock; 0 means dedupe.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Getenv (Redis) reads the environment (dedupe.RedisRetryEnv); nil
	// reads the process's.
	Getenv func(string) string
	// Prefix (Redis) is the frontier's key prefix option (see
	// frontier.Options.Prefix): "" means the URL's prefix=, else the
	// default.
	Prefix string
}

// ErrNoStore is returned by Open for an SQLite file that does not exist:
// the frontier is made by cqueue push, never by a tool's stats.
var ErrNoStore = errors.New("no such frontier")

// Open opens the store dsn names: a Redis URL (redis://, rediss://,
// redis+cluster://…) or the path of the frontier's SQLite file, which must
// exist.
func Open(ctx context.Context, dsn string, o Options) (Store, error) {
	if dedupe.IsRedisURL(dsn) {
		return openRedis(ctx, dsn, o)
	}
	if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (cqueue push makes one)", dsn, ErrNoStore)
	}
	return openSQLite(ctx, dsn, o)
}

// decode parses stored documents, skipping any that cannot be read (a
// newer release's, or damaged): a monitor shows what it can.
func decode(docs []string) []Snapshot {
	out := make([]Snapshot, 0, len(docs))
	for _, d := range docs {
		var s Snapshot
		if json.Unmarshal([]byte(d), &s) == nil {
			out = append(out, s)
		}
	}
	return out
}
