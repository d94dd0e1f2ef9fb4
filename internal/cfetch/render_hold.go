package cfetch

import (
	"context"
	"net/url"
	"sync"
)

// renderHolds bounds the requests rendered pages make to one host by
// --per-host: at most that many of them are in flight there at once,
// across all pages, from the moment the browser is let send one until its
// response has been read or it failed (render.Request.Hold); the others
// wait for a slot. The page's own document is scheduled (and counted)
// by the scheduler, apart. Safe for concurrent use; the zero value is
// ready.
type renderHolds struct {
	mu    sync.Mutex
	hosts map[string]*hostHolds
}

// hostHolds are the slots of one host; users counts the requests holding
// or waiting for one, so that an unused host is forgotten.
type hostHolds struct {
	slots chan struct{}
	users int
}

// hold waits for a slot on key (of n) and returns the function that gives
// it back, or ctx's error when ctx ends first.
func (rh *renderHolds) hold(ctx context.Context, key string, n int) (func(), error) {
	rh.mu.Lock()
	if rh.hosts == nil {
		rh.hosts = map[string]*hostHolds{}
	}
	h := rh.hosts[key]
	if h == nil {
		h = &hostHolds{slots: make(chan struct{}, n)}
		rh.hosts[key] = h
	}
	h.users++
	rh.mu.Unlock()
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		rh.leave(key, h)
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-h.slots
			rh.leave(key, h)
		})
	}, nil
}

// leave counts one user of h less, forgetting h when it has none.
func (rh *renderHolds) leave(key string, h *hostHolds) {
	rh.mu.Lock()
	defer rh.mu.Unlock()
	if h.users--; h.users == 0 && rh.hosts[key] == h {
		delete(rh.hosts, key)
	}
}

// holdSubrequest is render.Request.Hold for cfetch: a slot of --per-host
// on u's host.
func (f *Fetcher) holdSubrequest(ctx context.Context, u *url.URL) (func(), error) {
	return f.render.holds.hold(ctx, hostKey(u), f.opts.PerHost)
}
