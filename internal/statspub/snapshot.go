// Package statspub is how the tools' stats reach cqueue serve: the
// Snapshot of one tool process's stats, and the one loop that publishes
// snapshots every period to a Sink, the crawl's store (see package
// toolstats, which keeps them in the frontier's SQLite file or Redis).
//
// It links no database driver: package cli publishes a command's own
// stats (--stats-to) through it with the Opener its command was given,
// and cqueue crawl publishes its loop's tools' stats through it too.
package statspub

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
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

// DefaultTimeout bounds a periodic write when none is given: the stores'
// default busy timeout.
const DefaultTimeout = 5 * time.Second

// FinalTimeout bounds the last write, when the tools have exited.
const FinalTimeout = 2 * time.Second

// Sink is where snapshots are published: the crawl's store.
type Sink interface {
	// Put stores snaps, each replacing the snapshot of the same ID.
	Put(ctx context.Context, now time.Time, snaps ...Snapshot) error
	// Close releases the sink's connections.
	Close() error
}

// Opener opens the sink dsn names (the frontier's SQLite file or Redis
// URL), waiting at most timeout for a lock, reading the environment
// through getenv. A command that can publish its stats is given one
// (cli.Command.OpenStats): toolstats.OpenSink.
type Opener func(ctx context.Context, dsn string, timeout time.Duration, getenv func(string) string) (Sink, error)
