package cqueue

import (
	"context"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// idleRecheck is the longest pop --follow goes without a Pop while the
// frontier's version (frontier.Versioned) says nothing has been written
// since a Pop that handed out nothing. What changes with time alone is
// seen at most this late: a request held past the window's horizon (1s),
// a dead consumer on this machine (looked for once a second), an expired
// lease. A write (a push, an ack, another pop) is seen at the next look:
// looking at the version costs a small fraction of a Pop, which is a
// write transaction.
const idleRecheck = 250 * time.Millisecond

// idleWatch remembers the frontier's version at the last Pop that handed
// out nothing, while nothing has been handed out since.
type idleWatch struct {
	on      bool
	version int64
	since   time.Time // that Pop's time
}

// version reads the frontier's version; ok is false for a frontier that
// has none (Redis) or when it cannot be read.
func (p *popper) version(ctx context.Context) (v int64, ok bool) {
	fv, ok := p.fr.(frontier.Versioned)
	if !ok {
		return 0, false
	}
	v, err := fv.Version(ctx)
	return v, err == nil
}

// unchanged reports whether a Pop at now would find what the last one
// found, nothing: the version v (read now, ok) is the one read before it,
// and idleRecheck has not passed.
func (w *idleWatch) unchanged(v int64, ok bool, now time.Time) bool {
	return w.on && ok && v == w.version && now.Sub(w.since) < idleRecheck
}

// popped records a Pop at now that handed out n requests, with the
// version v read before it (ok).
func (w *idleWatch) popped(n int, v int64, ok bool, now time.Time) {
	if n > 0 || !ok {
		w.on = false
		return
	}
	w.on, w.version, w.since = true, v, now
}
