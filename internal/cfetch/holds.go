package cfetch

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/throttle"
)

// Holds: with --throttle-db or --throttle-redis, each rest a host begins
// or lengthens (scheduler_rest.go) is also written into cthrottle's
// schedule as a hold on the host's throttle key, so that every cthrottle
// sharing the schedule (another loop, another machine) holds that host's
// requests until the rest ends, then keeps them to its rate: one
// politeness decision for the whole fleet. See docs/throttle.md.
//
// The fetch path never waits for it: the scheduler hands the hold to a
// holdWriter, which keeps the latest end per key in a bounded map and
// writes them from a goroutine of its own. A store that fails is reported
// once, as a warning; this cfetch rests its hosts whatever the store does.

const (
	// holdQueueSize is the most keys whose holds wait to be written; a
	// hold for another key past it is dropped (counted "holds: dropped").
	holdQueueSize = 1024
	// holdWriteTimeout bounds one write (or the opening of the store).
	holdWriteTimeout = 5 * time.Second
	// holdFlushTimeout bounds how long the end of a run waits for the
	// holds still queued.
	holdFlushTimeout = 2 * time.Second
)

// holdWriter writes holds into the shared throttle schedule, in the
// background. hold never blocks; close writes what is queued (for at
// most holdFlushTimeout) and closes the store. Safe for concurrent use.
type holdWriter struct {
	flag  string // the flag that named the store, for messages
	dsn   string
	open  func(ctx context.Context, dsn string) (throttle.Store, error)
	now   func() time.Time
	warn  func(msg string)        // once per run
	count func(group, key string) // stats

	mu      sync.Mutex
	pending map[string]time.Time // key → the latest end asked for
	closed  bool

	wake   chan struct{} // something is pending
	quit   chan struct{} // close was called
	done   chan struct{} // the goroutine has ended
	ctx    context.Context
	cancel context.CancelFunc

	store  throttle.Store // the goroutine's own
	warned bool

	flushTimeout time.Duration // close's bound: holdFlushTimeout
}

// newHoldWriter returns a writer for the store o names, or nil when it
// names none.
func newHoldWriter(o *Options, warn func(string), count func(group, key string)) *holdWriter {
	flag, dsn := "--throttle-db", o.ThrottleDB
	if o.ThrottleRedis != "" {
		flag, dsn = "--throttle-redis", o.ThrottleRedis
	}
	if dsn == "" {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &holdWriter{
		flag: flag, dsn: dsn,
		open: func(ctx context.Context, dsn string) (throttle.Store, error) {
			return throttle.Open(ctx, dsn, throttle.Options{Getenv: o.Getenv})
		},
		now: time.Now, warn: warn, count: count,
		pending: map[string]time.Time{},
		wake:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
		ctx:     ctx, cancel: cancel,
		flushTimeout: holdFlushTimeout,
	}
}

// shareRests sends the scheduler's rests to a holdWriter, with
// --throttle-db or --throttle-redis.
func (p *pipeline) shareRests() {
	p.holds = newHoldWriter(p.opts, func(msg string) { p.tool.Printf("%s", msg) }, p.count.add)
	if p.holds != nil {
		p.sched.shared = func(key string, u *url.URL, until time.Time) { p.holds.hold(sharedKey(key, u), until) }
	}
}

// start opens the store and writes holds until close. A nil writer does
// nothing.
func (w *holdWriter) start() {
	if w != nil {
		go w.run()
	}
}

// hold asks for key to be held until until. It never blocks: a later
// hold for a key already queued replaces it (holds only move forward), and
// a new key past holdQueueSize is dropped.
func (w *holdWriter) hold(key string, until time.Time) {
	if key == "" {
		return
	}
	w.mu.Lock()
	prev, queued := w.pending[key]
	switch {
	case w.closed:
	case queued:
		if until.After(prev) {
			w.pending[key] = until
		}
	case len(w.pending) >= holdQueueSize:
		w.mu.Unlock()
		w.count("holds", "dropped")
		return
	default:
		w.pending[key] = until
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// close writes the holds still queued, giving up after holdFlushTimeout,
// and closes the store. A nil writer does nothing.
func (w *holdWriter) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	close(w.quit)
	select {
	case <-w.done:
	case <-time.After(w.flushTimeout):
		w.cancel()
		<-w.done
	}
	w.cancel()
}

func (w *holdWriter) run() {
	defer close(w.done)
	defer func() {
		if w.store != nil {
			w.store.Close()
		}
	}()
	w.connect() // now, so that a bad --throttle-db shows at once
	for {
		select {
		case <-w.wake:
			w.writePending()
		case <-w.quit:
			w.writePending()
			return
		}
	}
}

// connect opens the store if it is not open yet, and says whether it is.
func (w *holdWriter) connect() bool {
	if w.store != nil {
		return true
	}
	ctx, cancel := context.WithTimeout(w.ctx, holdWriteTimeout)
	defer cancel()
	s, err := w.open(ctx, w.dsn)
	if err != nil {
		w.fail(err)
		return false
	}
	w.store = s
	return true
}

// writePending writes every hold queued, the latest end of each key.
func (w *holdWriter) writePending() {
	w.mu.Lock()
	batch := w.pending
	w.pending = make(map[string]time.Time, len(batch))
	w.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	if !w.connect() {
		for range batch {
			w.count("holds", "failed")
		}
		return
	}
	for key, until := range batch {
		ctx, cancel := context.WithTimeout(w.ctx, holdWriteTimeout)
		err := w.store.Hold(ctx, key, until, w.now())
		cancel()
		if err != nil {
			w.count("holds", "failed")
			w.fail(err)
			continue
		}
		w.count("holds", "written")
	}
}

// fail reports the first error of the run, as a warning.
func (w *holdWriter) fail(err error) {
	if w.warned {
		return
	}
	w.warned = true
	msg := strings.TrimPrefix(err.Error(), "throttle: ")
	w.warn(fmt.Sprintf("warning: %s %s: %s: rests are not shared with the fleet (this cfetch still rests its hosts)", w.flag, w.dsn, msg))
}

// sharedKey is the throttle key (throttle.HostKey, as cthrottle keys a
// request) of the host whose cfetch key is key ("host:port"): that of u,
// the URL the answer came from, when it is on that host; else the host
// with its port, left out when it is the default of the scheme it
// suggests (443: https).
func sharedKey(key string, u *url.URL) string {
	if u != nil && hostKey(u) == key {
		k, _ := throttle.HostKey(u.String())
		return k
	}
	scheme := "http"
	if strings.HasSuffix(key, ":443") {
		scheme = "https"
	}
	k, _ := throttle.HostKey(scheme + "://" + key + "/")
	return k
}
