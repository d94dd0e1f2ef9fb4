package statspub

import (
	"context"
	"sync"
	"time"
)

// Publisher publishes snapshots every period, on a goroutine of its own,
// and a last time when stopped. The sink is opened at the first round. A
// round that fails is said once (Warn) and never stops the publishing;
// a write waits at most Timeout, so a slow store delays only the next
// round; when stopped, a write under way gives up and the last one waits
// at most FinalTimeout.
type Publisher struct {
	// Open opens the sink, waiting at most timeout.
	Open func(ctx context.Context, timeout time.Duration) (Sink, error)
	// Snapshots are what a round publishes, taken at now; final on the
	// last round. None: the round writes nothing.
	Snapshots func(now time.Time, final bool) ([]Snapshot, error)
	// Every is the period; Timeout bounds a periodic write (0:
	// DefaultTimeout).
	Every, Timeout time.Duration
	// Now reads the clock; nil is time.Now.
	Now func() time.Time
	// Warn says the first failure (final when it is the last round's).
	Warn func(err error, final bool)
}

// Start publishes at once, then every p.Every, until the returned
// function is called: it stops the rounds, publishes the last snapshots
// and closes the sink. It may be called more than once.
func (p *Publisher) Start() (stop func()) {
	r := &rounds{p: p, done: make(chan struct{}), stop: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	go r.loop()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.cancel() // a round under way gives up
			close(r.stop)
			<-r.done
			r.round(true)
			if r.sink != nil {
				r.sink.Close()
			}
		})
	}
}

type rounds struct {
	p          *Publisher
	ctx        context.Context // of the periodic writes: cancelled at the end
	cancel     context.CancelFunc
	stop, done chan struct{}
	sink       Sink // opened by the first round; nil until then
	told       bool // a failure was said
}

func (r *rounds) loop() {
	defer close(r.done)
	tick := time.NewTicker(r.p.Every)
	defer tick.Stop()
	for {
		// The first at once: the tools show from their start.
		r.round(false)
		select {
		case <-r.stop:
			return
		case <-tick.C:
		}
	}
}

// round is one write; the last, final, with its own bound.
func (r *rounds) round(final bool) {
	timeout, parent := r.p.Timeout, r.ctx
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if final {
		timeout, parent = min(timeout, FinalTimeout), context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	err := r.put(ctx, timeout, final)
	if err != nil && !r.told && (final || r.ctx.Err() == nil) {
		r.told = true
		if r.p.Warn != nil {
			r.p.Warn(err, final)
		}
	}
}

func (r *rounds) put(ctx context.Context, timeout time.Duration, final bool) error {
	if r.sink == nil {
		s, err := r.p.Open(ctx, timeout)
		if err != nil {
			return err
		}
		r.sink = s
	}
	now := time.Now()
	if r.p.Now != nil {
		now = r.p.Now()
	}
	snaps, err := r.p.Snapshots(now, final)
	if err != nil || len(snaps) == 0 {
		return err
	}
	return r.sink.Put(ctx, now, snaps...)
}
