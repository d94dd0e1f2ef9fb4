package frontier

import (
	"sync"
	"time"
)

// The window's horizon (PopOptions.Horizon): a request a consumer has held
// longer than the horizon no longer counts against its Window. Both
// backends keep, in the process that pops, when each lease was handed out
// (handouts), count how many of the consumer's recent leases it still
// holds, and cap the pop by those alone.

// handouts remembers when this process handed out the leases of each of
// its consumers, back to the longest horizon asked for. A lease handed
// out by another process (another Frontier value) is unknown to it, and
// so counts as held longer than any horizon. Safe for concurrent use; the
// zero value is ready.
type handouts struct {
	mu sync.Mutex
	by map[string]map[string]time.Time // consumer id → lease → when handed out
}

// recent returns consumer's leases handed out after since, and forgets
// the older ones.
func (h *handouts) recent(consumer string, since time.Time) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.by[consumer]
	out := make([]string, 0, len(m))
	for l, at := range m {
		if at.After(since) {
			out = append(out, l)
		} else {
			delete(m, l)
		}
	}
	return out
}

// drop forgets consumer's leases ls (no longer held: acked, released or
// given back), so that the leases recent returns stay about those held.
func (h *handouts) drop(consumer string, ls []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.by[consumer]
	for _, l := range ls {
		delete(m, l)
	}
}

// add records ls, handed out to consumer at now.
func (h *handouts) add(consumer string, ls []Leased, now time.Time) {
	if consumer == "" || len(ls) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by == nil {
		h.by = map[string]map[string]time.Time{}
	}
	m := h.by[consumer]
	if m == nil {
		m = make(map[string]time.Time, len(ls))
		h.by[consumer] = m
	}
	for _, l := range ls {
		m[l.Lease] = now
	}
}

// forget drops what is known of consumer (it left).
func (h *handouts) forget(consumer string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.by, consumer)
}

// horizonOn reports whether o asks for a window with a horizon.
func (o PopOptions) horizonOn() bool {
	return o.Horizon > 0 && o.Window > 0 && o.Consumer.ID != ""
}
