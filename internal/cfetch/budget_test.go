package cfetch

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// within fails the test if f does not return in a minute: the budget
// would be deadlocked (no correct run comes near it).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still waiting after a minute: deadlocked", what)
	}
}

// signalQueued returns a channel that receives a value each time a
// reservation of b starts to wait. Call it before b is shared.
func signalQueued(b *budget) <-chan struct{} {
	ch := make(chan struct{}, 64)
	b.queued = func() { ch <- struct{}{} }
	return ch
}

// checkIdle checks that everything was given back, and that nobody but
// the exempt reservation ever went past the budget.
func checkIdle(t *testing.T, b *budget) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held != 0 || b.running != 0 || len(b.waiters) != 0 || b.exempt != nil {
		t.Errorf("after all releases: held %d, running %d, %d waiting, exempt %v; want all zero", b.held, b.running, len(b.waiters), b.exempt != nil)
	}
	if b.peakRest > b.capacity {
		t.Errorf("reservations other than the exempt one held %d bytes at once, over the budget of %d", b.peakRest, b.capacity)
	}
	if b.peak > b.capacity+b.peakOne {
		t.Errorf("held %d bytes at once, over the budget %d plus the largest reservation %d", b.peak, b.capacity, b.peakOne)
	}
}

// TestBudgetManyGrowingReservations: many responses growing their share in
// chunks at once (some larger than the whole budget) all complete, and
// only one at a time goes past the budget.
func TestBudgetManyGrowingReservations(t *testing.T) {
	b := newBudget(1000)
	var wg sync.WaitGroup
	for i := range 64 {
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		total := 50 + rng.Int64N(600)
		if i%16 == 0 {
			total = 1500 // larger than the budget
		}
		wg.Go(func() {
			r := b.reserve()
			for r.size() < total {
				r.growWait(min(10+rng.Int64N(90), total-r.size()))
				if rng.IntN(4) == 0 {
					runtime.Gosched() // let the others interleave
				}
			}
			r.shrink(total / 2) // the body goes, the line stays
			r.growWait(total / 4)
			r.release()
		})
	}
	within(t, "64 growing reservations", wg.Wait)
	checkIdle(t, b)
	if b.peak <= b.capacity {
		t.Errorf("peak %d: the exempt reservation never went past the budget %d", b.peak, b.capacity)
	}
}

// TestBudgetEveryHolderWaiting: when all the holders wait for more, the
// oldest goes on past the budget; the others follow once it is done.
func TestBudgetEveryHolderWaiting(t *testing.T) {
	b := newBudget(100)
	queued := signalQueued(b)
	a, c := b.reserve(), b.reserve()
	a.growWait(60)
	c.growWait(40)
	var wg sync.WaitGroup
	cGot := make(chan struct{})
	wg.Go(func() {
		c.growWait(50)
		close(cGot)
		c.release()
	})
	// c waits (a runs, the budget is spent); then a waits too.
	within(t, "the younger holder to wait", func() { <-queued })
	within(t, "the oldest holder, all holders waiting", func() { a.growWait(50) })
	select {
	case <-cGot:
		t.Fatal("the younger holder was served while the exempt one held 110 of 100 bytes")
	default:
	}
	if b.exempt != a {
		t.Fatal("the oldest holder is not the exempt reservation")
	}
	a.release()
	within(t, "the younger holder, once the oldest is done", wg.Wait)
	checkIdle(t, b)
}

// TestBudgetLargerThanBudgetAlone: one response larger than the whole
// budget proceeds when nothing else holds any; while others do, it waits
// for them.
func TestBudgetLargerThanBudgetAlone(t *testing.T) {
	b := newBudget(100)
	r := b.reserve()
	within(t, "alone", func() { r.growWait(500) })
	r.release()

	queued := signalQueued(b)
	small, big := b.reserve(), b.reserve()
	small.growWait(30)
	got := make(chan struct{})
	go func() { big.growWait(500); close(got) }()
	within(t, "the large one to wait", func() { <-queued })
	select {
	case <-got:
		t.Fatal("a response over the budget was served while another one held bytes and ran")
	default:
	}
	small.release()
	within(t, "once the other is done", func() { <-got })
	big.release()
	checkIdle(t, b)
}

// TestBudgetWaitCancelled: a wait ends with its context, leaving the budget
// as if it had not been asked, and the next in line is served.
func TestBudgetWaitCancelled(t *testing.T) {
	b := newBudget(100)
	queued := signalQueued(b)
	holder, first, second := b.reserve(), b.reserve(), b.reserve()
	holder.growWait(80)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- first.grow(ctx, 50) }()
	within(t, "the first to wait", func() { <-queued })
	got := make(chan struct{})
	go func() { second.growWait(10); close(got) }()
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("grow: %v, want context.Canceled", err)
	}
	within(t, "the next in line", func() { <-got })
	if first.size() != 0 {
		t.Errorf("a cancelled wait left %d bytes held", first.size())
	}
	second.release()
	holder.release()
	checkIdle(t, b)
}

func TestBudgetNil(t *testing.T) {
	var b *budget
	r := b.reserve()
	if err := r.grow(context.Background(), 1<<40); err != nil || r.size() != 0 {
		t.Fatal("a nil budget limits")
	}
	r.shrink(1)
	r.release()
}
