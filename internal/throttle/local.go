package throttle

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Local is a Store in this process's memory: a golang.org/x/time/rate
// token bucket per key, shared by nobody else. A token bucket of size
// Burst refilled one token per Interval is the same schedule as the
// stores' GCRA (see the package comment), and Local answers exactly as
// they do, to the microsecond. A hold empties the key's bucket at the
// hold (see reserve). Purge evicts the keys whose bucket is full again
// and whose hold is over: an idle key costs nothing. Safe for concurrent
// use.
type Local struct {
	mu   sync.Mutex
	lims map[string]*localKey
}

type localKey struct {
	lim  *rate.Limiter // nil until the key's first reservation
	rate Rate
	hold int64 // microseconds; 0: none
}

// NewLocal returns an empty Local store.
func NewLocal() *Local { return &Local{lims: map[string]*localKey{}} }

// Reserve implements Store. now is the caller's clock, to the microsecond.
func (l *Local) Reserve(_ context.Context, reqs []Request, now time.Time) (Reply, error) {
	if err := checkRequests(reqs); err != nil {
		return Reply{}, err
	}
	now = time.UnixMicro(micros(now))
	reply := Reply{Now: now, Grants: make([]Grant, len(reqs))}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, q := range reqs {
		k := l.lims[q.Key]
		if k == nil {
			k = &localKey{}
			l.lims[q.Key] = k
		}
		if k.lim == nil {
			// A new bucket is full.
			k.lim = rate.NewLimiter(rate.Every(q.Rate.Interval), q.Rate.Burst)
			k.rate = q.Rate
		} else if k.rate != q.Rate {
			k.lim.SetLimitAt(now, rate.Every(q.Rate.Interval))
			k.lim.SetBurstAt(now, q.Rate.Burst)
			k.rate = q.Rate
		}
		// With t tokens in the bucket, the i-th request from now (from 0)
		// waits (i+1-t) intervals: base is (1-t) intervals, as GCRA's
		// tat - tau - now.
		iv := int64(q.Rate.Interval / time.Microsecond)
		nowUS := micros(now)
		base := int64(math.Round((1 - k.lim.TokensAt(now)) * float64(iv)))
		// A hold later than that empties the bucket at the hold: base is
		// the hold, as reserve's max(M - tau, hold).
		held := k.hold > 0 && k.hold-nowUS > base
		if held {
			base = k.hold - nowUS
		}
		granted := q.N
		if q.MaxWait >= 0 {
			x := maxWaitMicros(q.MaxWait) - base
			n := int64(0)
			if x >= 0 {
				n = x/iv + 1
			}
			granted = int(min(int64(q.N), n))
		}
		if held && granted > 0 {
			k.lim = limiterAt(q.Rate, k.hold+int64(q.Rate.tolerance()/time.Microsecond), now)
		}
		for range granted {
			k.lim.ReserveN(now, 1)
		}
		reply.Grants[i] = Grant{Granted: granted, Base: time.Duration(base) * time.Microsecond, Interval: q.Rate.Interval}
	}
	return reply, nil
}

// limiterAt returns a limiter of rate r in the state GCRA's tat gives at
// now: burst - (tat-now)/interval tokens, fewer than one (or negative)
// when the next slot is ahead. A bucket emptied at e holds (t-e)/interval
// tokens at t, so it is emptied at e = tat - burst*interval. When e is
// after now (the limiter counts from its last event, which must not be
// ahead of the calls that follow), it is emptied d intervals earlier, at
// or before now, and then d more tokens are taken at now (under a burst
// raised for that one call: a limiter refuses more than its burst at
// once).
func limiterAt(r Rate, tat int64, now time.Time) *rate.Limiter {
	iv := int64(r.Interval / time.Microsecond)
	lim := rate.NewLimiter(rate.Every(r.Interval), r.Burst)
	e := tat - int64(r.Burst)*iv
	d := int64(0)
	if nowUS := micros(now); e > nowUS {
		d = (e - nowUS + iv - 1) / iv
		e -= d * iv
	}
	lim.ReserveN(time.UnixMicro(e), r.Burst)
	if d > 0 {
		lim.SetBurstAt(now, int(max(d, int64(r.Burst))))
		lim.ReserveN(now, int(d))
		lim.SetBurstAt(now, r.Burst)
	}
	return lim
}

// Hold implements Store.
func (l *Local) Hold(_ context.Context, key string, until, now time.Time) error {
	untilUS, _, ok := holdMicros(key, until, now)
	if !ok {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.lims[key]
	if k == nil {
		k = &localKey{}
		l.lims[key] = k
	}
	k.hold = max(k.hold, untilUS)
	return nil
}

// Holds implements Store.
func (l *Local) Holds(_ context.Context, keys []string, now time.Time) (map[string]time.Duration, error) {
	nowUS := micros(now)
	held := map[string]time.Duration{}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, key := range keys {
		if k := l.lims[key]; k != nil && k.hold > nowUS {
			held[key] = time.Duration(k.hold-nowUS) * time.Microsecond
		}
	}
	return held, nil
}

// Purge implements Store: it evicts the keys whose bucket is full at
// before and whose hold changes no answer from then on (hold + tolerance
// before before; HoldMargin for a key never reserved).
func (l *Local) Purge(_ context.Context, before time.Time) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	b := micros(before)
	for key, k := range l.lims {
		tol := HoldMargin
		if k.lim != nil {
			tol = k.rate.tolerance()
		}
		full := k.lim == nil || k.lim.TokensAt(before) >= float64(k.rate.Burst)
		if full && (k.hold == 0 || k.hold+int64(tol/time.Microsecond) < b) {
			delete(l.lims, key)
			n++
		}
	}
	return n, nil
}

// Len implements Store.
func (l *Local) Len(context.Context) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lims), nil
}

// Close implements Store.
func (l *Local) Close() error { return nil }
