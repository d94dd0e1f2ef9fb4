package frontier

import (
	"context"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// Frontier is the crawl's queue of requests. Both implementations
// (OpenSQLite, OpenRedis) are safe for concurrent use by goroutines and by
// processes sharing the file or the server, and every method is atomic:
// it happens entirely or (on error) not at all. Times are always passed in;
// nothing reads the clock.
type Frontier interface {
	// Push queues entries, in order, and returns one result per entry:
	// queued, or refused with a reason (ReasonDuplicate, ReasonStopped,
	// ReasonExpired). Entries with DontFilter skip the duplicate check and
	// are not recorded as seen.
	Push(ctx context.Context, entries []Entry, now time.Time) ([]PushResult, error)
	// Ack finishes the requests holding leases (from Pop), so they are never
	// handed out again. A lease that is unknown, or whose request was handed
	// out again after it expired, is counted in AckResult.Unknown, not an
	// error. A lease that expired but whose request has not been handed out
	// again is still honoured (the work was done; nothing is refetched).
	Ack(ctx context.Context, leases []string, now time.Time) (AckResult, error)
	// Apply is Push, then Ack, then fail, then release, in one
	// transaction: the follow-up requests of a page and the ack of the page
	// commit together, so a crash can lose neither without the other.
	// Failed leases (Batch.Fails: a stage could not process the request)
	// dead-letter their requests with the fail's reason, as Ack would
	// finish them: in flight, or queued again after the lease expired but
	// not handed out since. A fail whose request is gone, dead already or
	// handed out again is counted in BatchResult.FailUnknown and changes
	// nothing. Released leases (Batch.Releases) return their in-flight
	// requests to the queue at once, unfetched: no retry is counted and the
	// lease is void (a graceful shutdown gives back what it will not fetch).
	Apply(ctx context.Context, b Batch, now time.Time) (BatchResult, error)
	// Pop hands out up to o.Max requests, each leased until now+o.Lease:
	// highest priority first, FIFO (or LIFO, Options.Order) within a
	// priority, round-robin across the (crawl, host) queues whose head has
	// the top priority, so a host with many queued requests cannot starve
	// one with few. Before popping it reclaims expired leases and the
	// leases of dead consumers (see Reclaim) and purges crawls past their
	// expiry (see Expire). It returns fewer than o.Max, or none, when fewer
	// are queued or o.Consumer holds o.Window; with none it says whether
	// the crawl is over.
	Pop(ctx context.Context, o PopOptions, now time.Time) (PopResult, error)
	// Join registers a consumer: a process that pops with PopOptions.Consumer
	// and calls Beat while it runs (cqueue pop --follow). c.Host, c.PID and
	// c.Boot say where it runs; Join returns c with a new ID.
	Join(ctx context.Context, c Consumer, now time.Time) (Consumer, error)
	// Beat says consumer c is alive at now and renews every lease it holds
	// until now+lease, so requests waiting in a slow pipeline (politeness
	// delays) never expire while their consumer lives. It returns how
	// many requests c holds in flight. A consumer declared dead (its
	// leases abandoned) is registered again.
	Beat(ctx context.Context, c Consumer, lease time.Duration, now time.Time) (held int, err error)
	// Leave unregisters consumer c; the leases it still holds are
	// abandoned at once, as if it had died.
	Leave(ctx context.Context, c Consumer, now time.Time) error
	// Reclaim returns requests whose lease expired by now to their queue
	// with retries+1; a request whose lease has expired
	// Options.MaxLeaseExpiries times is dead-lettered instead (kept, with
	// reason "lease_expired", never handed out again); one whose crawl was
	// stopped or expired is dropped. It also abandons the leases of dead
	// consumers (see Consumer): they return to their queue at once, with
	// no retry counted, and a request abandoned Options.MaxAbandons times
	// is dead-lettered (reason "consumer_died"). To return every in-flight
	// request at once (when no consumer is left to ack them), pass a time
	// past every deadline.
	Reclaim(ctx context.Context, now time.Time) (ReclaimResult, error)
	// Stop purges the queued requests of crawl crawlID and refuses its
	// later pushes (ReasonStopped), returning how many it purged. Its
	// in-flight requests finish normally when acked, and are dropped if
	// their lease expires. Stopping a crawl the frontier has never seen
	// blacklists it in advance.
	Stop(ctx context.Context, crawlID string, now time.Time) (purged int, err error)
	// Unstop makes a stopped crawl active again: its later pushes are
	// queued as any crawl's. What Stop purged stays purged. A crawl that
	// is not stopped (or unknown) is left as it is.
	Unstop(ctx context.Context, crawlID string, now time.Time) error
	// Expire purges the crawls whose expiry has passed at now, and returns
	// every crawl expired since the last call, each once, for an "expired"
	// notification. Pop purges expired crawls too, and Expire still reports
	// those. A crawl's expiry is the latest expires among the requests pushed
	// to it (0, never, when none has one); a request pushed after its crawl
	// expired (one with no expires, or a later one) revives the crawl, whose
	// expiry then starts over.
	Expire(ctx context.Context, now time.Time) ([]Expired, error)
	// Counts returns how many requests are queued, in flight and dead.
	Counts(ctx context.Context) (Counts, error)
	// Info returns Scrapy Cluster's "info" view: per crawl (filtered by
	// appid and/or crawlid), totals, priorities, expiry and per-host counts.
	Info(ctx context.Context, filter InfoFilter) (Info, error)
	// Stats returns the frontier's lifetime counters (see the Stat names).
	Stats(ctx context.Context) (map[string]int64, error)
	// Dump calls fn for every request the frontier holds, queued, in
	// flight or dead, with its state. fn must not call the frontier.
	Dump(ctx context.Context, fn func(DumpEntry) error) error
	// Done reports whether nothing is queued and nothing is in flight: the
	// crawl is over (dead-lettered requests do not count).
	Done(ctx context.Context) (bool, error)
	// CrawlMeta returns the metadata of crawl crawlID: a few key/value
	// strings a program keeps with a crawl (cqueue crawl keeps the rules
	// and seeds the crawl was started with). It is empty, not nil, when
	// none was set. Metadata is independent of the crawl's requests: it
	// may be set before any is pushed, and Stop and expiry keep it.
	CrawlMeta(ctx context.Context, crawlID string) (map[string]string, error)
	// SetCrawlMeta sets the keys of meta in crawl crawlID's metadata, in one
	// atomic step, and returns the whole metadata after it. Unless replace
	// is set, a key the crawl has already keeps its value: of several
	// processes starting one crawl at once, the first one's values stand
	// and every one of them gets them back. Other keys are kept either way.
	SetCrawlMeta(ctx context.Context, crawlID string, meta map[string]string, replace bool) (map[string]string, error)
	// AddCrawlCounts adds each of add to the integer value of that key of
	// crawl crawlID's metadata (a key not set counts as 0), sets the keys
	// of set, in one atomic step, and returns the whole metadata after it:
	// how cqueue push counts a crawl's pages, items and errors for its
	// budget (see Budget), across every loop sharing the frontier. The
	// keys of add must hold integers. On Redis a call retried after its
	// answer was lost adds once.
	AddCrawlCounts(ctx context.Context, crawlID string, add map[string]int64, set map[string]string) (map[string]string, error)
	// Consumers returns the registered consumers (see Join), sorted by ID,
	// each with its last heartbeat and how many requests it holds in
	// flight: who is working on the frontier's crawls, for a monitor. A
	// consumer that died is listed until the next Pop or Reclaim declares
	// it dead (compare its Beat with Options.ConsumerTimeout). On Redis
	// the list is read in two steps, not atomically: a Held may be a beat
	// older than the rest.
	Consumers(ctx context.Context) ([]ConsumerInfo, error)
	// LockCrawl takes, or renews, crawl crawlID's run lock for holder
	// until now+ttl: the lock a run of the crawl (cqueue crawl) holds so
	// that no second run starts while it runs, on this machine or another
	// sharing the frontier. It succeeds when the lock is free, has expired
	// at now, is holder's already, or is held by steal (a holder the
	// caller knows is dead: its process is gone); otherwise ok is false
	// and cur is the holder. The holder renews it (calls LockCrawl again)
	// well within ttl, as a consumer beats.
	LockCrawl(ctx context.Context, crawlID, holder, steal string, ttl time.Duration, now time.Time) (cur string, ok bool, err error)
	// UnlockCrawl releases crawl crawlID's run lock if holder holds it.
	UnlockCrawl(ctx context.Context, crawlID, holder string) error
	// Close releases the frontier's connections.
	Close() error
}

// Versioned is a Frontier that can say cheaply whether anything has been
// written to it: Version returns a number that changes whenever a write
// commits, by this process or another. A consumer whose Pop found nothing
// may skip its next Pop while the number stays the same, as long as
// nothing it waits for comes with time alone (a lease's expiry, a
// consumer's death, the window's horizon). SQLite implements it; Redis
// does not.
type Versioned interface {
	Version(ctx context.Context) (int64, error)
}

// Options configure a frontier. The zero value is ready to use: FIFO, no
// depth adjustment, three lease expiries before the dead letter, the
// default busy timeout and key prefix, no dedupe expiry. Order,
// DepthPriority and KeyMode apply when requests are pushed; keep them the
// same for all processes sharing a frontier.
type Options struct {
	// Order within one priority: FIFO (the zero value) or LIFO, like
	// Scrapy's SCHEDULER_DISK_QUEUE.
	Order Order
	// DepthPriority is Scrapy's DEPTH_PRIORITY: a request is queued at
	// priority - depth*DepthPriority. Positive: breadth-first; negative
	// (with LIFO): depth-first.
	DepthPriority int
	// MaxLeaseExpiries is how many times a request's lease may expire
	// before it is dead-lettered: 0 means 3, negative means never.
	MaxLeaseExpiries int
	// DedupeTTL expires a crawl's duplicate filter after it has been idle
	// that long (Scrapy Cluster's DUPEFILTER_TIMEOUT); 0 keeps it forever.
	DedupeTTL time.Duration
	// BusyTimeout (SQLite) is how long to wait for another process's
	// write lock; 0 means storage.DefaultBusyTimeout (5s).
	BusyTimeout time.Duration
	// MaxAbandons is how many times a request may be abandoned by a dead
	// consumer before it is dead-lettered: 0 means 10, negative never. It
	// is higher than MaxLeaseExpiries because a consumer is mostly killed
	// by its user (kill -9, a reboot), not by the request it held.
	MaxAbandons int
	// ConsumerTimeout is how long a consumer may go without a Beat before
	// it is declared dead and its leases abandoned; 0 means 30s. A
	// consumer on this machine (same host name and boot) whose process is
	// gone is declared dead at once (Pop looks at processes at most once a
	// second).
	ConsumerTimeout time.Duration
	// Getenv (Redis) reads the environment (storage.RedisRetryEnv); nil
	// reads the process's.
	Getenv func(string) string
	// Prefix (Redis) is prepended to every key; "" means the Redis
	// URL's prefix= option, else storage.DefaultPrefix ("crawlutils:").
	// On a Redis Cluster it is put in braces, a hash tag (see
	// storage.RedisConn.KeyPrefix).
	Prefix string
}

// Order is the order of requests within one priority.
type Order int

const (
	// FIFO hands out the oldest request first (Scrapy's default queues).
	FIFO Order = iota
	// LIFO hands out the newest request first (depth-first crawls).
	LIFO
)

func (o Options) maxExpiries() int {
	if o.MaxLeaseExpiries == 0 {
		return 3
	}
	return o.MaxLeaseExpiries
}

func (o Options) maxAbandons() int {
	if o.MaxAbandons == 0 {
		return 10
	}
	return o.MaxAbandons
}

func (o Options) consumerTimeout() time.Duration {
	if o.ConsumerTimeout <= 0 {
		return DefaultConsumerTimeout
	}
	return o.ConsumerTimeout
}

// DefaultConsumerTimeout is Options.ConsumerTimeout's default.
const DefaultConsumerTimeout = 30 * time.Second

// Open opens the frontier dsn names: a Redis URL (redis://host:port/db)
// or else the path of an SQLite file.
func Open(ctx context.Context, dsn string, o Options) (Frontier, error) {
	// A nil *Redis or *SQLite is not a nil Frontier: say nil on error.
	if storeurl.IsRedisURL(dsn) {
		r, err := OpenRedis(ctx, dsn, o)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	s, err := OpenSQLite(ctx, dsn, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Reasons a pushed request is refused, as PushResult.Reason and in the
// Stats names ("refused_" + reason).
const (
	ReasonDuplicate = "duplicate" // seen before in its crawl
	ReasonStopped   = "stopped"   // its crawl was stopped
	ReasonExpired   = "expired"   // its expires has passed
	ReasonFresh     = "fresh"     // seen in a recent round (Entry.Fresh)
)

// PushResult is what happened to one pushed entry.
type PushResult struct {
	Queued bool
	// Reason says why it was refused; "" when queued.
	Reason string
}

// Batch is the work of Apply: requests to queue, leases to ack, leases
// to fail (dead-letter with a reason), leases to release.
type Batch struct {
	Entries  []Entry
	Acks     []string
	Fails    []Fail
	Releases []string
}

// BatchResult is what Apply did: one PushResult per entry, the acks, the
// fails (Failed requests were dead-lettered; FailUnknown leases matched no
// request that could still be failed) and the releases (Released requests
// went back to their queue; ReleaseUnknown leases held no request in
// flight).
type BatchResult struct {
	Pushed         []PushResult
	Acks           AckResult
	Failed         int
	FailUnknown    int
	Released       int
	ReleaseUnknown int
}

// AckResult counts the leases of an Ack.
type AckResult struct {
	// Acked requests are finished.
	Acked int
	// Unknown leases matched no request that could still be finished.
	Unknown int
}

// PopOptions are Pop's arguments.
type PopOptions struct {
	// Max is how many requests to hand out at most.
	Max int
	// Lease is how long each stays leased (renewed by Beat when Consumer
	// is set).
	Lease time.Duration
	// Consumer (from Join) holds the leases: Beat renews them, and they
	// are abandoned when it dies. Pop counts as a beat (and registers it
	// again if it was declared dead); SQLite writes that beat at most once
	// a second per consumer, so that pops finding nothing write nothing.
	// The zero Consumer (no ID) is for a one-off pop (a cron batch),
	// whose leases simply expire.
	Consumer Consumer
	// Window, with Consumer, caps how many requests the consumer holds in
	// flight: Pop hands out at most Window minus those. 0: no cap.
	Window int
	// HostWindow, with Consumer, caps how many requests of one queue (a
	// crawl's host) the consumer holds in flight: a queue at the cap is
	// passed over, as if it had nothing queued, until one of them is
	// settled. So a slow host cannot fill the consumer's Window and hold
	// the fast ones to its pace (Scrapy's DownloaderAwarePriorityQueue
	// serves the least busy download slot first for the same reason).
	// 0: no cap.
	HostWindow int
	// Horizon, with Window, counts against Window only the requests the
	// consumer was handed less than Horizon ago (by this Frontier value)
	// and still holds. A request held longer is waiting downstream for
	// its host (a Crawl-delay, a rest, a rate limit, the host's
	// connections all busy, a slow server), not for the fetcher's
	// concurrency: it must not keep the other hosts' requests out of the
	// window. HostWindow still counts it, so what a consumer holds stays
	// bounded. 0: every request held counts.
	Horizon time.Duration
}

// PopResult is what Pop did.
type PopResult struct {
	Leased []Leased
	// Held is how many requests PopOptions.Consumer holds in flight after
	// this pop (0 without a consumer).
	Held int
	// Done, set only when Leased is empty, says nothing is queued and
	// nothing is in flight: the crawl is over.
	Done bool
	// GaveBack is how many requests the consumer held that this pop gave
	// back to the queue first, leases kept, because Redis had lost the
	// consumer's last pop, and with it any acks written since (a server
	// restarted from an append-only file without its tail). Always 0 on
	// SQLite.
	GaveBack int
}

// Consumer is a process popping requests with heartbeats (see Join).
type Consumer struct {
	// ID is assigned by Join.
	ID string `json:"id"`
	// Host is the machine's host name, PID the process's id and Boot the
	// machine's boot id (Linux: /proc/sys/kernel/random/boot_id; "" when
	// unknown): a consumer on this machine and boot whose PID is gone is
	// dead without waiting for Options.ConsumerTimeout.
	Host string `json:"host"`
	PID  int    `json:"pid"`
	Boot string `json:"boot,omitempty"`
}

// Leased is a request handed out by Pop.
type Leased struct {
	// Lease identifies this hand-out; an ack record carries it back.
	Lease string
	// Raw is the request as one JSON object (no newline), with its "lease"
	// field set and "retries" counting the expired leases.
	Raw []byte
	// Deadline is when the lease expires.
	Deadline time.Time
	CrawlID  string
	Host     string
	// Priority is the priority it was queued at (after DepthPriority).
	Priority int
}

// ReclaimResult counts what Reclaim did with expired leases.
type ReclaimResult struct {
	Requeued     int
	DeadLettered int
	// Abandoned requests were held by dead consumers and went back to
	// their queue (those dead-lettered count in DeadLettered).
	Abandoned int
	// Dropped requests belonged to stopped or expired crawls.
	Dropped int
}

// Counts are the sizes of the frontier.
type Counts struct {
	Queued   int64 `json:"queued"`
	InFlight int64 `json:"in_flight"`
	Dead     int64 `json:"dead"`
}

// Expired is a crawl purged because its expires passed.
type Expired struct {
	CrawlID string `json:"crawlid"`
	AppID   string `json:"appid,omitempty"`
	// Expires is the crawl's expiry, Unix seconds.
	Expires int64 `json:"expires"`
	// Purged is how many queued requests were dropped.
	Purged int `json:"purged"`
}

// InfoFilter selects the crawls Info reports; empty fields match all.
type InfoFilter struct {
	AppID   string
	CrawlID string
}

// Info is Scrapy Cluster's info answer: crawls sorted by crawlid.
type Info struct {
	Crawls []CrawlInfo `json:"crawls"`
}

// Crawl states, in CrawlInfo.State.
const (
	StateActive  = "active"
	StateStopped = "stopped"
	StateExpired = "expired"
)

// CrawlInfo describes one crawl. Priorities are over its queued requests
// (0 when none is queued).
type CrawlInfo struct {
	CrawlID      string     `json:"crawlid"`
	AppID        string     `json:"appid,omitempty"`
	State        string     `json:"state"`
	Expires      int64      `json:"expires,omitempty"`
	Pending      int64      `json:"total_pending"`
	InFlight     int64      `json:"in_flight"`
	Dead         int64      `json:"dead"`
	HighPriority int        `json:"high_priority"`
	LowPriority  int        `json:"low_priority"`
	Hosts        []HostInfo `json:"domains"`
}

// HostInfo is one host's queue within a crawl.
type HostInfo struct {
	Host         string `json:"domain"`
	Pending      int64  `json:"total"`
	InFlight     int64  `json:"in_flight"`
	Dead         int64  `json:"dead"`
	HighPriority int    `json:"high_priority"`
	LowPriority  int    `json:"low_priority"`
}

// Entry states, in DumpEntry.State.
const (
	Queued   = "queued"
	InFlight = "in_flight"
	Dead     = "dead"
)

// DumpEntry is one request as Dump reports it.
type DumpEntry struct {
	State string
	// Raw is the request JSON as Pop would hand it out (with "lease" while
	// in flight, and "retries" counting expired leases).
	Raw      []byte
	CrawlID  string
	Host     string
	Priority int
	Lease    string
	Deadline time.Time // in flight only
	Expiries int
	Abandons int
	// Reason, dead only, is why: "lease_expired", "consumer_died", or the
	// reason of the Fail that dead-lettered it (see FailReason).
	Reason string
}

// Names of the counters Stats returns (absent when zero).
const (
	StatPushed       = "pushed"         // queued by Push or Apply
	StatPopped       = "popped"         // handed out by Pop
	StatAcked        = "acked"          // finished by an ack
	StatAckUnknown   = "ack_unknown"    // acks matching nothing
	StatReleased     = "released"       // returned unfetched by a release
	StatRequeued     = "requeued"       // returned to the queue after a lease expired
	StatDeadLettered = "dead_lettered"  // dead-lettered after MaxLeaseExpiries or MaxAbandons
	StatFailed       = "failed"         // dead-lettered by a fail (Batch.Fails)
	StatFailUnknown  = "fail_unknown"   // fails matching nothing
	StatAbandoned    = "abandoned"      // returned to the queue when its consumer died
	StatConsumerDied = "consumers_died" // consumers declared dead
	StatDropped      = "dropped"        // in flight when its crawl stopped or expired, then expired
	StatPurgedStop   = "purged_stopped" // purged by Stop
	StatPurgedExpiry = "purged_expired" // purged when their crawl expired
	StatRefused      = "refused_"       // prefix: "refused_duplicate", …
	reasonDeadLetter = "lease_expired"
	reasonAbandoned  = "consumer_died"
)
