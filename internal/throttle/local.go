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
// they do, to the microsecond. Purge evicts the keys whose bucket is full
// again: an idle key costs nothing. Safe for concurrent use.
type Local struct {
	mu   sync.Mutex
	lims map[string]*localKey
}

type localKey struct {
	lim  *rate.Limiter
	rate Rate
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
			// A new bucket is full.
			k = &localKey{lim: rate.NewLimiter(rate.Every(q.Rate.Interval), q.Rate.Burst), rate: q.Rate}
			l.lims[q.Key] = k
		} else if k.rate != q.Rate {
			k.lim.SetLimitAt(now, rate.Every(q.Rate.Interval))
			k.lim.SetBurstAt(now, q.Rate.Burst)
			k.rate = q.Rate
		}
		// With t tokens in the bucket, the i-th request from now (from 0)
		// waits (i+1-t) intervals: base is (1-t) intervals, as GCRA's
		// tat - tau - now.
		iv := int64(q.Rate.Interval / time.Microsecond)
		base := int64(math.Round((1 - k.lim.TokensAt(now)) * float64(iv)))
		granted := q.N
		if q.MaxWait >= 0 {
			x := maxWaitMicros(q.MaxWait) - base
			n := int64(0)
			if x >= 0 {
				n = x/iv + 1
			}
			granted = int(min(int64(q.N), n))
		}
		for range granted {
			k.lim.ReserveN(now, 1)
		}
		reply.Grants[i] = Grant{Granted: granted, Base: time.Duration(base) * time.Microsecond, Interval: q.Rate.Interval}
	}
	return reply, nil
}

// Purge implements Store: it evicts the keys whose bucket is full at
// before.
func (l *Local) Purge(_ context.Context, before time.Time) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for key, k := range l.lims {
		if k.lim.TokensAt(before) >= float64(k.rate.Burst) {
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
