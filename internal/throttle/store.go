package throttle

import (
	"context"
	"fmt"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// NoMaxWait is the Request.MaxWait that reserves however far ahead the slots are.
const NoMaxWait time.Duration = -1

// Request asks for the next N start slots of one key.
type Request struct {
	Key  string
	N    int
	Rate Rate
	// MaxWait is the furthest ahead of now a slot may be: the first slot
	// past it, and every one after it, is refused and not reserved.
	// NoMaxWait reserves them all.
	MaxWait time.Duration
}

// Grant is the answer to one Request: its first Granted slots are
// reserved, the rest refused. Slot i (from 0) starts Wait(i) after the
// store's now.
type Grant struct {
	Granted int
	// Base is where slot 0 would start relative to now before it is
	// clamped to now: negative when a burst lets the key start at once.
	Base     time.Duration
	Interval time.Duration
}

// Wait is how long after the store's now slot i starts; Wait(Granted) is
// how far ahead the first refused one would have been.
func (g Grant) Wait(i int) time.Duration {
	return max(0, g.Base+time.Duration(i)*g.Interval)
}

// Reply is the answer to one Reserve: a Grant per Request, in order, and
// the store's clock when it decided (the time the waits count from).
type Reply struct {
	Now    time.Time
	Grants []Grant
}

// Store holds the schedule of every key and reserves start slots in it.
// The implementations are safe for concurrent use by several goroutines
// and, for SQLite and Redis, by every process that opens the same file or
// server: each key has one schedule, whoever asks.
type Store interface {
	// Reserve reserves slots for each request, atomically per key (the
	// requests of one call need not be atomic together). Keys must be
	// distinct within one call. now is the caller's clock; a Redis store
	// uses the server's instead unless Options.CallerClock is set, and
	// Reply.Now says which was used.
	Reserve(ctx context.Context, reqs []Request, now time.Time) (Reply, error)
	// Purge forgets the keys whose schedule has been free since before
	// before: their next request would start at once, as a new key's
	// does, so forgetting them changes no answer. It returns how many it
	// forgot. Redis forgets such keys by itself (they expire), so there it
	// returns 0.
	//
	// A key under a hold is kept while the hold can still change an
	// answer: until its hold plus its tolerance (that of its last
	// reservation; HoldMargin for a key held before any reservation named
	// its rate) is before before.
	Purge(ctx context.Context, before time.Time) (int, error)
	// Hold makes key start nothing before until: its next slot is at
	// until at the earliest, and the slots after it keep the rate from
	// there (one per interval: the burst is spent at until and refills
	// from it, so what waited does not start at once). A hold only moves
	// forward: one ending before the key's current hold changes nothing.
	// It is one atomic step, as a reservation is, and the reservations
	// of every process sharing the store honour it (see reserve for the
	// arithmetic). until is on the caller's clock, as now is; a Redis
	// store holds the key until-now past its own clock unless
	// Options.CallerClock is set. An empty key, or an until not after
	// now, is a no-op and returns nil.
	Hold(ctx context.Context, key string, until, now time.Time) error
	// Holds returns, for each of keys held past now, how long after now
	// its hold ends; keys not held are not in the map. It reads, and
	// changes nothing. A Redis store counts from its own clock unless
	// Options.CallerClock is set, as Hold does.
	Holds(ctx context.Context, keys []string, now time.Time) (map[string]time.Duration, error)
	// Len returns the number of keys held.
	Len(ctx context.Context) (int, error)
	// Close releases the store.
	Close() error
}

// Options configure a store. The zero value is ready to use.
type Options struct {
	// BusyTimeout (SQLite) is how long a reservation waits for another
	// process's write lock; 0 means storage.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Getenv (Redis) reads the environment (storage.RedisRetryEnv); nil
	// reads the process's.
	Getenv func(string) string
	// Prefix (Redis) is prepended to every key; "" means the Redis URL's
	// prefix= option, else storage.DefaultPrefix. On a Redis Cluster it is
	// put in braces, a hash tag (see storage.RedisConn.KeyPrefix).
	Prefix string
	// Keep (Redis) is how long a key outlives its last slot before Redis
	// expires it; 0 means DefaultKeep.
	Keep time.Duration
	// CallerClock (Redis) makes Reserve count from the now it is given
	// instead of the server's clock (TIME): for tests that move the clock
	// by hand. With several machines, leave it off: one clock, the
	// server's, orders every reservation.
	CallerClock bool
}

// HoldMargin is how long a hold is remembered past its end when the
// key's tolerance is not known: a key held before any reservation named
// its rate. What a hold does after it ends depends on that tolerance
// (the burst refills from the hold, one slot per interval), so forgetting
// it earlier could give back a burst a little early; a margin of an hour
// covers every burst of up to an hour's worth of intervals.
const HoldMargin = time.Hour

// DefaultKeep is how long a key's schedule is kept past its last slot
// (Redis expiry; the purge margin cthrottle uses with SQLite and local):
// long enough that clocks a little apart never see a purged key as free
// earlier than it is.
const DefaultKeep = time.Minute

// Open opens the store dsn names: a Redis URL (redis://host:port/db) or
// else the path of an SQLite file (created if needed).
func Open(ctx context.Context, dsn string, o Options) (Store, error) {
	if storeurl.IsRedisURL(dsn) {
		return OpenRedis(ctx, dsn, o)
	}
	return OpenSQLite(ctx, dsn, o)
}

// checkRequests validates a Reserve call's requests.
func checkRequests(reqs []Request) error {
	seen := make(map[string]bool, len(reqs))
	for _, r := range reqs {
		if err := r.Rate.Valid(); err != nil {
			return fmt.Errorf("throttle: key %q: %v", r.Key, err)
		}
		if r.N < 1 {
			return fmt.Errorf("throttle: key %q: asked for %d slots", r.Key, r.N)
		}
		if r.MaxWait < 0 && r.MaxWait != NoMaxWait {
			return fmt.Errorf("throttle: key %q: negative max wait %v", r.Key, r.MaxWait)
		}
		if seen[r.Key] {
			return fmt.Errorf("throttle: key %q twice in one reservation", r.Key)
		}
		seen[r.Key] = true
	}
	return nil
}

// micros is t in microseconds since the Unix epoch, the stores' unit.
func micros(t time.Time) int64 { return t.UnixMicro() }

// maxWaitMicros is MaxWait in microseconds, -1 for NoMaxWait.
func maxWaitMicros(d time.Duration) int64 {
	if d < 0 {
		return -1
	}
	return int64(d / time.Microsecond)
}

// reserve is the slot arithmetic every store implements (SQL, Lua, and
// with golang.org/x/time/rate), in integer microseconds: GCRA. tat is the
// key's theoretical arrival time, the slot its next request takes burst
// aside (fresh: a key with no schedule, as if tat <= now); hold is the
// key's hold (0: none). It reserves up to n slots of interval iv,
// tolerance tau = (burst-1)*iv, none further than maxw past now (maxw <
// 0: no limit), and returns the new tat, the base (slot i starts at
// max(now, base + i*iv)) and how many were granted. A refusal leaves the
// schedule as it was.
//
// Without a hold, with M = max(tat, now):
//
//	base = M - tau,  tat' = M + granted*iv
//
// A hold h is read as a tat of at least h + tau: the key's bucket is
// empty at h (GCRA's tat - tau is the next slot, so tat = h + tau puts
// the next slot at h with no burst left). So, with T = max(M, h + tau):
//
//	base = T - tau = max(M - tau, h)
//	tat' = T + granted*iv = base + tau + granted*iv
//
// Slot 0 is at max(now, base) >= h; slot i at base + i*iv, one interval
// apart from the hold on, whatever the burst; the next reservation starts
// from tat' - tau = base + granted*iv. After the hold the burst comes
// back one slot per interval, as after any busy spell: once now >= h +
// tau the hold changes nothing (T = M), which is why Purge may forget it
// then. A hold never makes a slot earlier (T >= M), and a later hold is a
// larger lower bound, so holds only add up by their max.
func reserve(tat int64, fresh bool, hold, now int64, n int, iv, tau, maxw int64) (newTat, base int64, granted int) {
	t0 := now
	if !fresh && tat > now {
		t0 = tat
	}
	if hold > 0 && hold+tau > t0 {
		t0 = hold + tau
	}
	base = t0 - tau
	granted = n
	if maxw >= 0 {
		x := maxw - (base - now) // slot i is in time while i*iv <= x
		q := int64(0)
		if x >= 0 {
			q = x/iv + 1
		}
		granted = int(min(int64(n), q))
	}
	if granted == 0 {
		return tat, base, 0
	}
	return t0 + int64(granted)*iv, base, granted
}

// holdMicros checks a Hold call: key's hold until, in microseconds,
// rounded up (a hold is never made shorter), and now, truncated; ok is
// false for a no-op (no key, or until not after now).
func holdMicros(key string, until, now time.Time) (untilUS, nowUS int64, ok bool) {
	nowUS = micros(now)
	untilUS = micros(until)
	if until.After(time.UnixMicro(untilUS)) {
		untilUS++
	}
	return untilUS, nowUS, key != "" && untilUS > nowUS
}
