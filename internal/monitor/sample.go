package monitor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// The sampler reads the frontier once per interval — Counts, Stats, Info,
// Consumers, and the metadata of the crawls with work left — and keeps
// the latest snapshot plus a bounded history per crawl. Every API answer
// is built from what it holds, so the store is read once per interval
// however many pages watch, and the crawl loop sees one more reader, never
// a writer. Being the shared store's own view, it covers every machine
// whose pipelines share the frontier.

// snapshot is what one sample read.
type snapshot struct {
	At        time.Time
	Counts    frontier.Counts
	Stats     map[string]int64
	Crawls    []frontier.CrawlInfo
	Consumers []frontier.ConsumerInfo
	Meta      map[string]map[string]string // crawls with work left, and those paused
	// Tools are the snapshots of the tools' stats not expired (none
	// without a tools store).
	Tools []statspub.Snapshot
}

// errorCounters and deadCounters are the frontier's counters summed into
// errors/s and dead/s: requests that came back without being done (their
// lease expired, their consumer died, a stage failed them), and those
// dead-lettered.
var (
	errorCounters = []string{frontier.StatRequeued, frontier.StatAbandoned, frontier.StatFailed}
	deadCounters  = []string{frontier.StatDeadLettered, frontier.StatFailed}
)

// maxCrawls bounds the crawls that get a history; maxHosts the hosts
// whose last change is tracked. Beyond them the API still answers with
// the current counts.
const (
	maxCrawls = 200
	maxHosts  = 100_000
)

// sampler holds the samples. Its methods are safe for concurrent use.
type sampler struct {
	fr             frontier.Frontier
	toolsStore     toolstats.Store // nil: the tools are not read
	fineN, coarseN int
	coarseStep     time.Duration

	mu      sync.RWMutex
	cur     *snapshot // nil before the first sample
	lastErr error
	first   int64 // time of the first sample (Unix ms): it has no rates
	all     *series
	crawls  map[string]*crawlTrack
	hosts   int                   // hosts tracked, over every crawl
	tools   map[string]*toolTrack // by snapshot ID
}

// crawlTrack is what the sampler keeps of one crawl between samples.
type crawlTrack struct {
	series  *series
	shared  bool // some rate of its history was apportioned among crawls
	changed time.Time
	hosts   map[string]*hostTrack
}

// hostTrack is when a host's counts last changed.
type hostTrack struct {
	counts [3]int64 // queued, in flight, dead
	since  time.Time
}

func newSampler(fr frontier.Frontier, tools toolstats.Store, fineN, coarseN int, coarseStep time.Duration) *sampler {
	return &sampler{fr: fr, toolsStore: tools, fineN: fineN, coarseN: coarseN, coarseStep: coarseStep,
		all: newSeries(fineN, coarseN, coarseStep), crawls: map[string]*crawlTrack{}, tools: map[string]*toolTrack{}}
}

// sample reads the frontier at now and adds one point to each history. A
// failed read is kept as the sampler's error (the API reports it) and
// leaves the previous snapshot in place.
func (s *sampler) sample(ctx context.Context, now time.Time) error {
	snap, err := s.read(ctx, now)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.lastErr = err
		return err
	}
	s.lastErr = nil
	prev := s.cur
	if prev == nil {
		s.first = snap.At.UnixMilli()
	}
	s.cur = snap
	s.record(prev, snap)
	return nil
}

// read takes one snapshot. The metadata read is limited to the crawls
// with work left and those the last snapshot saw paused.
func (s *sampler) read(ctx context.Context, now time.Time) (*snapshot, error) {
	snap := &snapshot{At: now, Meta: map[string]map[string]string{}}
	var err error
	if snap.Counts, err = s.fr.Counts(ctx); err != nil {
		return nil, err
	}
	if snap.Stats, err = s.fr.Stats(ctx); err != nil {
		return nil, err
	}
	info, err := s.fr.Info(ctx, frontier.InfoFilter{})
	if err != nil {
		return nil, err
	}
	snap.Crawls = info.Crawls
	if snap.Consumers, err = s.fr.Consumers(ctx); err != nil {
		return nil, err
	}
	if s.toolsStore != nil {
		if snap.Tools, err = s.toolsStore.List(ctx, now); err != nil {
			return nil, fmt.Errorf("the tools' stats: %w", err)
		}
	}
	// Every crawl's metadata, up to maxCrawls, those with work left first:
	// a finished crawl's says whether it is complete or stopped, and how
	// long its round ran.
	n := 0
	for _, pass := range []bool{true, false} {
		for _, c := range snap.Crawls {
			if (c.Pending+c.InFlight > 0) != pass {
				continue
			}
			if n >= maxCrawls {
				break
			}
			n++
			m, err := s.fr.CrawlMeta(ctx, c.CrawlID)
			if err != nil {
				return nil, err
			}
			snap.Meta[c.CrawlID] = m
		}
	}
	return snap, nil
}

// record adds the points of snap, with rates over the interval since
// prev (none for the first sample). Called with s.mu held.
func (s *sampler) record(prev, snap *snapshot) {
	t := snap.At.UnixMilli()
	var dt float64
	if prev != nil {
		dt = snap.At.Sub(prev.At).Seconds()
	}
	var pages, errs, dead float64
	prevCrawls := map[string]frontier.CrawlInfo{}
	if dt > 0 {
		pages = delta(prev.Stats, snap.Stats, frontier.StatAcked) / dt
		errs = deltaSum(prev.Stats, snap.Stats, errorCounters) / dt
		dead = deltaSum(prev.Stats, snap.Stats, deadCounters) / dt
		for _, c := range prev.Crawls {
			prevCrawls[c.CrawlID] = c
		}
	}
	tools := s.trackTools(snap.Tools)
	var items, httpErrs float64
	for _, r := range tools {
		items += r.items()
		httpErrs += r.httpErrors
	}
	s.all.add(Point{T: t, Queued: snap.Counts.Queued, InFlight: snap.Counts.InFlight, Dead: snap.Counts.Dead,
		Pages: round(pages), Errors: round(errs), DeadRate: round(dead), Items: round(items), HTTPErrors: round(httpErrs)})

	share := shares(prevCrawls, snap.Crawls)
	unnamed := tools[""]
	if unnamed == nil {
		unnamed = &toolRates{}
	}
	seen := map[string]bool{}
	for _, c := range snap.Crawls {
		seen[c.CrawlID] = true
		tr := s.track(c, snap.At)
		if tr == nil {
			continue
		}
		p := Point{T: t, Queued: c.Pending, InFlight: c.InFlight, Dead: c.Dead}
		if pc, ok := prevCrawls[c.CrawlID]; ok {
			p.DeadRate = round(max(0, float64(c.Dead-pc.Dead)) / dt)
			if pc.Pending != c.Pending || pc.InFlight != c.InFlight || pc.Dead != c.Dead {
				tr.changed = snap.At
			}
		}
		w := share[c.CrawlID]
		if w > 0 {
			p.Pages, p.Errors = round(pages*w), round(errs*w)
			if w < 1 {
				tr.shared = true
			}
		}
		// The tools that publish for this crawl, and its share of those
		// that name none.
		if c.CrawlID != "" {
			if r := tools[c.CrawlID]; r != nil {
				p.Items, p.HTTPErrors = r.items(), r.httpErrors
			}
		}
		p.Items = round(p.Items + unnamed.items()*w)
		p.HTTPErrors = round(p.HTTPErrors + unnamed.httpErrors*w)
		tr.series.add(p)
		s.trackHosts(tr, c, snap.At)
	}
	for id, tr := range s.crawls {
		if !seen[id] {
			s.hosts -= len(tr.hosts)
			delete(s.crawls, id)
		}
	}
}

// track returns crawl c's track, making one if there is room: past
// maxCrawls, the one whose counts have not changed for the longest goes,
// if it is older than c's last change.
func (s *sampler) track(c frontier.CrawlInfo, now time.Time) *crawlTrack {
	if tr := s.crawls[c.CrawlID]; tr != nil {
		return tr
	}
	if len(s.crawls) >= maxCrawls {
		oldest := ""
		for id, tr := range s.crawls {
			if oldest == "" || tr.changed.Before(s.crawls[oldest].changed) {
				oldest = id
			}
		}
		if c.Pending+c.InFlight == 0 {
			return nil // a finished crawl does not evict a tracked one
		}
		s.hosts -= len(s.crawls[oldest].hosts)
		delete(s.crawls, oldest)
	}
	tr := &crawlTrack{series: newSeries(s.fineN, s.coarseN, s.coarseStep), changed: now, hosts: map[string]*hostTrack{}}
	s.crawls[c.CrawlID] = tr
	return tr
}

// trackHosts notes when each host's counts last changed, for the
// "slowest" ranking; hosts gone from the crawl are forgotten.
func (s *sampler) trackHosts(tr *crawlTrack, c frontier.CrawlInfo, now time.Time) {
	live := make(map[string]bool, len(c.Hosts))
	for _, h := range c.Hosts {
		live[h.Host] = true
		counts := [3]int64{h.Pending, h.InFlight, h.Dead}
		ht := tr.hosts[h.Host]
		switch {
		case ht == nil && s.hosts < maxHosts:
			tr.hosts[h.Host] = &hostTrack{counts: counts, since: now}
			s.hosts++
		case ht != nil && ht.counts != counts:
			ht.counts, ht.since = counts, now
		}
	}
	for h := range tr.hosts {
		if !live[h] {
			delete(tr.hosts, h)
			s.hosts--
		}
	}
}

// shares apportions the frontier's page and error rates among its crawls,
// since the frontier counts acks for all of them together: in proportion
// to the requests each had in flight at the two ends of the interval (at
// equal latency, throughput follows what is in flight); failing that, to
// how much each one's counts moved; failing that, all to the one crawl
// with work, if only one has. With one crawl running — the usual case, as
// cqueue crawl refuses a frontier where another waits — it is exact.
func shares(prev map[string]frontier.CrawlInfo, cur []frontier.CrawlInfo) map[string]float64 {
	w := map[string]float64{}
	var total float64
	for _, c := range cur {
		x := float64(c.InFlight + prev[c.CrawlID].InFlight)
		w[c.CrawlID], total = x, total+x
	}
	if total == 0 {
		for _, c := range cur {
			p, ok := prev[c.CrawlID]
			if !ok {
				continue
			}
			x := float64(abs(c.Pending-p.Pending) + abs(c.Dead-p.Dead))
			w[c.CrawlID], total = x, total+x
		}
	}
	if total == 0 {
		var active []string
		for _, c := range cur {
			if c.Pending > 0 {
				active = append(active, c.CrawlID)
			}
		}
		if len(active) == 1 {
			return map[string]float64{active[0]: 1}
		}
		return nil
	}
	for k := range w {
		w[k] /= total
	}
	return w
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func delta(prev, cur map[string]int64, name string) float64 {
	return float64(max(0, cur[name]-prev[name]))
}

func deltaSum(prev, cur map[string]int64, names []string) float64 {
	var d float64
	for _, n := range names {
		d += delta(prev, cur, n)
	}
	return d
}

// latest returns the latest snapshot (nil before the first sample) and
// the error of the last sample, if it failed.
func (s *sampler) latest() (*snapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cur, s.lastErr
}

// seriesOf returns crawl id's points (the frontier's when all), whether
// any of its rates was apportioned among crawls, and whether it is
// tracked at all.
func (s *sampler) seriesOf(id string, all, coarse bool, n int) (pts []Point, shared, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if all {
		return s.all.points(coarse, n), false, true
	}
	tr := s.crawls[id]
	if tr == nil {
		return nil, false, false
	}
	return tr.series.points(coarse, n), tr.shared, true
}

// recent returns crawl id's rates averaged over its last n points, and
// its levels at the last one.
func (s *sampler) recent(id string, n int) (Point, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	tr := s.crawls[id]
	if tr == nil {
		return Point{}, false
	}
	return average(tr.series.points(false, n), s.first), true
}

// recentAll is recent for the whole frontier.
func (s *sampler) recentAll(n int) Point {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return average(s.all.points(false, n), s.first)
}

// average is the last point's levels with the points' rates averaged
// (each is the rate over the interval that ended at it), leaving out the
// server's first sample, which has none.
func average(pts []Point, first int64) Point {
	if len(pts) == 0 {
		return Point{}
	}
	out := pts[len(pts)-1]
	out.Pages, out.Errors, out.DeadRate, out.Items, out.HTTPErrors = 0, 0, 0, 0, 0
	k := 0.0
	for _, p := range pts {
		if p.T == first {
			continue
		}
		out.Pages += p.Pages
		out.Errors += p.Errors
		out.DeadRate += p.DeadRate
		out.Items += p.Items
		out.HTTPErrors += p.HTTPErrors
		k++
	}
	if k > 0 {
		out.Pages, out.Errors, out.DeadRate = out.Pages/k, out.Errors/k, out.DeadRate/k
		out.Items, out.HTTPErrors = out.Items/k, out.HTTPErrors/k
	}
	return out
}

// hostsSince returns, for crawl id, when each tracked host's counts last
// changed.
func (s *sampler) hostsSince(id string) map[string]time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := map[string]time.Time{}
	if tr := s.crawls[id]; tr != nil {
		for h, ht := range tr.hosts {
			out[h] = ht.since
		}
	}
	return out
}
