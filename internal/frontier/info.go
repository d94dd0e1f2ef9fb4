package frontier

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// summarize fills a crawl's totals from its hosts.
func summarize(c *CrawlInfo) {
	if c.Hosts == nil {
		c.Hosts = []HostInfo{} // "domains": [], not null, for jq
	}
	first := true
	for _, h := range c.Hosts {
		c.Pending += h.Pending
		c.InFlight += h.InFlight
		c.Dead += h.Dead
		if h.Pending == 0 {
			continue
		}
		if first || h.HighPriority > c.HighPriority {
			c.HighPriority = h.HighPriority
		}
		if first || h.LowPriority < c.LowPriority {
			c.LowPriority = h.LowPriority
		}
		first = false
	}
}

func sortExpired(es []Expired) {
	slices.SortFunc(es, func(a, b Expired) int { return strings.Compare(a.CrawlID, b.CrawlID) })
}

// errCallback marks an error returned by a caller's function, to pass it
// through unwrapped.
type errCallback struct{ err error }

func (e errCallback) Error() string { return e.err.Error() }
func (e errCallback) Unwrap() error { return e.err }

// Record returns the entry as one JSON line (with newline) for a dump: the
// request as Pop would hand it out, plus a "frontier" object with its
// state, priority, expiries, abandons and, while in flight, lease deadline (RFC
// 3339), or, when dead, the reason. Pushing a dump's requests into another
// frontier restores its queue (the "frontier" field is kept as an unknown
// field, and the lease is dropped).
func (d DumpEntry) Record() []byte {
	meta := struct {
		State    string `json:"state"`
		Priority int    `json:"priority"`
		Expiries int    `json:"expiries,omitempty"`
		Abandons int    `json:"abandons,omitempty"`
		Deadline string `json:"deadline,omitempty"`
		Reason   string `json:"reason,omitempty"`
	}{State: d.State, Priority: d.Priority, Expiries: d.Expiries, Abandons: d.Abandons, Reason: d.Reason}
	if !d.Deadline.IsZero() {
		meta.Deadline = d.Deadline.UTC().Format(time.RFC3339Nano)
	}
	m, _ := json.Marshal(meta)
	raw := d.Raw
	out := make([]byte, 0, len(raw)+len(m)+16)
	out = append(out, raw[:len(raw)-1]...)
	out = append(out, `,"frontier":`...)
	out = append(out, m...)
	return append(out, '}', '\n')
}
