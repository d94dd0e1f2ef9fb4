package cfetch

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// budget is the memory cfetch may spend on bodies at once (--max-memory):
// the bodies as read, the text converted from them and the response lines
// made of them, until each line is written. It is a weighted semaphore
// whose holders grow their share step by step (a body is read in chunks;
// its size is rarely known beforehand), with two rules that keep it from
// blocking for good:
//
//   - Waiters are served oldest reservation first, and none is served out
//     of turn, so a large response is not starved by a stream of small
//     ones.
//   - When every reservation that holds bytes is itself waiting (nobody
//     could give any back), the oldest waiter is served although the
//     budget is spent, and is then the exempt reservation: the only one
//     allowed past the budget, until it gives everything back. So a
//     response larger than the whole budget still completes, alone, and
//     the bytes held never exceed the budget plus one response.
//
// A nil *budget is no budget: its reservations are nil, and the methods of
// a nil *reservation do nothing. A budget is safe for concurrent use.
type budget struct {
	mu       sync.Mutex
	capacity int64
	held     int64
	// running counts the reservations that hold bytes and are not
	// waiting: the ones that will give bytes back without more.
	running int
	waiters []*reservation // ordered by seq
	exempt  *reservation
	seq     uint64

	// For tests: the most bytes held at once, by all and by the
	// reservations other than the exempt one, and the most held by one;
	// queued, when set, is called (b.mu held) each time a reservation
	// starts to wait, so a test waits for that instead of polling.
	peak, peakRest, peakOne int64
	queued                  func()
}

// reservation is one response's share of a budget. Its methods are called
// by one goroutine at a time (the response passes from the worker to the
// writer).
type reservation struct {
	b    *budget
	seq  uint64
	n    int64         // bytes held
	want int64         // bytes waited for
	wake chan struct{} // closed when want is granted; nil unless waiting
}

// newBudget returns a budget of capacity bytes, or nil (no limit) for 0.
func newBudget(capacity int64) *budget {
	if capacity <= 0 {
		return nil
	}
	return &budget{capacity: capacity}
}

// reserve returns a new reservation holding nothing.
func (b *budget) reserve() *reservation {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	return &reservation{b: b, seq: b.seq}
}

// grow adds n bytes to r, waiting until the budget allows them. It returns
// ctx's error if ctx is done first (r is then as it was).
func (r *reservation) grow(ctx context.Context, n int64) error {
	if r == nil || n <= 0 {
		return nil
	}
	b := r.b
	b.mu.Lock()
	if len(b.waiters) == 0 && b.fits(r, n) {
		b.grantLocked(r, n)
		b.mu.Unlock()
		return nil
	}
	wake := make(chan struct{})
	r.want, r.wake = n, wake
	i, _ := slices.BinarySearchFunc(b.waiters, r.seq, func(w *reservation, seq uint64) int { return cmp.Compare(w.seq, seq) })
	b.waiters = slices.Insert(b.waiters, i, r)
	if r.n > 0 {
		b.running--
	}
	b.serveLocked() // r may be served at once: it may be the oldest
	if r.wake != nil && b.queued != nil {
		b.queued()
	}
	b.mu.Unlock()
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.wake == nil {
		return nil // served meanwhile
	}
	b.waiters = slices.DeleteFunc(b.waiters, func(w *reservation) bool { return w == r })
	r.want, r.wake = 0, nil
	if r.n > 0 {
		b.running++
	}
	b.serveLocked() // r may have been first in line
	return ctx.Err()
}

// growWait is grow for a caller that is never cancelled: it waits as long
// as it takes (the budget's rules make sure it ends).
func (r *reservation) growWait(n int64) {
	_ = r.grow(context.Background(), n)
}

// shrink gives back n bytes (at most what r holds).
func (r *reservation) shrink(n int64) {
	if r == nil || n <= 0 {
		return
	}
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	n = min(n, r.n)
	if n == 0 {
		return
	}
	r.n -= n
	b.held -= n
	if r.n == 0 {
		b.running--
		if b.exempt == r {
			b.exempt = nil
		}
	}
	b.serveLocked()
}

// release gives back everything r holds.
func (r *reservation) release() {
	if r != nil {
		r.shrink(r.size())
	}
}

// size returns the bytes r holds.
func (r *reservation) size() int64 {
	if r == nil {
		return 0
	}
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	return r.n
}

// fits reports whether r, not waiting, may have n more bytes now.
func (b *budget) fits(r *reservation, n int64) bool {
	if b.held+n <= b.capacity || b.exempt == r {
		return true
	}
	others := b.running
	if r.n > 0 {
		others-- // r itself is running: it is asking
	}
	return others == 0 && b.exempt == nil
}

// serveLocked serves the waiters, oldest first, while they fit. When none
// fits and nobody holding bytes is running, one is served anyway: the
// exempt reservation if it is waiting (it is, then: it holds bytes), else
// the first, which becomes the exempt one.
func (b *budget) serveLocked() {
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		switch {
		case b.held+w.want <= b.capacity || b.exempt == w:
		case b.running == 0:
			if b.exempt != nil {
				w = b.exempt
			}
			b.exempt = w
		default:
			return
		}
		b.waiters = slices.DeleteFunc(b.waiters, func(x *reservation) bool { return x == w })
		n := w.want
		close(w.wake)
		w.want, w.wake = 0, nil
		if w.n > 0 {
			b.running++ // it runs again; grantLocked counts only new holders
		}
		b.grantLocked(w, n)
	}
}

// grantLocked adds n bytes to r, which is not waiting.
func (b *budget) grantLocked(r *reservation, n int64) {
	if r.n == 0 {
		b.running++
	}
	if b.exempt == nil && b.held+n > b.capacity {
		b.exempt = r
	}
	r.n += n
	b.held += n
	b.peak = max(b.peak, b.held)
	b.peakOne = max(b.peakOne, r.n)
	rest := b.held
	if b.exempt != nil {
		rest -= b.exempt.n
	}
	b.peakRest = max(b.peakRest, rest)
}
