package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Stats accounts for every record a command reads: how many came in, went
// out, were dropped (by reason) or failed (by kind), plus named counters such
// as HTTP statuses. Safe for concurrent use.
type Stats struct {
	In, Out atomic.Int64
	// Bytes counts input bytes unless the command says otherwise.
	Bytes atomic.Int64
	Start time.Time

	mu       sync.Mutex
	dropped  map[string]int64
	errors   map[string]int64
	counters map[string]map[string]int64
	order    []string
	now      func() time.Time
}

// NewStats starts the clock.
func NewStats() *Stats {
	s := &Stats{dropped: map[string]int64{}, errors: map[string]int64{}, counters: map[string]map[string]int64{}, now: time.Now}
	s.Start = s.now()
	return s
}

// Drop counts one record dropped for reason.
func (s *Stats) Drop(reason string) { s.add(s.dropped, reason, 1) }

// DropN counts n records dropped for reason.
func (s *Stats) DropN(reason string, n int64) { s.add(s.dropped, reason, n) }

// Error counts one record that failed with kind (it was still written).
func (s *Stats) Error(kind string) { s.add(s.errors, kind, 1) }

// Count adds n to the counter key of group (e.g. "status", "200").
func (s *Stats) Count(group, key string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.counters[group]
	if m == nil {
		m = map[string]int64{}
		s.counters[group] = m
		s.order = append(s.order, group)
	}
	m[key] += n
}

func (s *Stats) add(m map[string]int64, k string, n int64) {
	s.mu.Lock()
	m[k] += n
	s.mu.Unlock()
}

// Dropped returns the total of records dropped.
func (s *Stats) Dropped() int64 { return s.sum(s.dropped) }

// Errors returns the total of records with errors.
func (s *Stats) Errors() int64 { return s.sum(s.errors) }

func (s *Stats) sum(m map[string]int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// Elapsed is the time since Start.
func (s *Stats) Elapsed() time.Duration { return s.now().Sub(s.Start) }

// Summary is the one-line end-of-run summary.
func (s *Stats) Summary() string {
	el := s.Elapsed()
	in := s.In.Load()
	var b strings.Builder
	fmt.Fprintf(&b, "%d in, %d out, %d dropped", in, s.Out.Load(), s.Dropped())
	s.mu.Lock()
	if len(s.dropped) > 0 {
		fmt.Fprintf(&b, " (%s)", joinCounts(s.dropped))
	}
	if len(s.errors) > 0 {
		fmt.Fprintf(&b, "; errors: %s", joinCounts(s.errors))
	}
	for _, g := range s.order {
		fmt.Fprintf(&b, "; %s: %s", g, joinCounts(s.counters[g]))
	}
	s.mu.Unlock()
	fmt.Fprintf(&b, "; %s in %s (%s/s)", humanBytes(s.Bytes.Load()), el.Round(time.Millisecond), rate(in, el))
	return b.String()
}

// StatsJSON is the --stats FILE document. New fields may be added.
type StatsJSON struct {
	Tool      string                      `json:"tool"`
	Version   string                      `json:"version"`
	In        int64                       `json:"in"`
	Out       int64                       `json:"out"`
	Dropped   map[string]int64            `json:"dropped"`
	Errors    map[string]int64            `json:"errors"`
	Counts    map[string]map[string]int64 `json:"counts,omitempty"`
	Bytes     int64                       `json:"bytes"`
	StartedAt string                      `json:"started_at"`
	DurationS float64                     `json:"duration_s"`
	RatePerS  float64                     `json:"rate_per_s"`
	// Gauges are the command's levels when the file was written (cqueue
	// pop: queued, in_flight; cfetch: in_flight, hosts_resting, …).
	Gauges map[string]int64 `json:"gauges,omitempty"`
}

// JSON snapshots the stats for --stats FILE.
func (s *Stats) JSON(tool string) StatsJSON {
	el := s.Elapsed()
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[string]map[string]int64{}
	for g, m := range s.counters {
		counts[g] = maps.Clone(m)
	}
	in := s.In.Load()
	r := 0.0
	if el > 0 {
		r = float64(in) / el.Seconds()
	}
	return StatsJSON{
		Tool: tool, Version: Version, In: in, Out: s.Out.Load(),
		Dropped: maps.Clone(s.dropped), Errors: maps.Clone(s.errors), Counts: counts,
		Bytes: s.Bytes.Load(), StartedAt: s.Start.UTC().Format(time.RFC3339),
		DurationS: el.Seconds(), RatePerS: r,
	}
}

func joinCounts(m map[string]int64) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return fmt.Sprintf("%.1f", float64(n)/d.Seconds())
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
