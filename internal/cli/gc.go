package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// The tools' garbage collector, unless GOGC says otherwise. A tool of the
// crawl loop keeps a few MB live and allocates fast (a record per page,
// decoded and encoded), so with Go's default (GOGC=100: collect when the
// heap doubles, from 4 MB) it collects every few milliseconds: a fifth of
// the loop's CPU in the demo crawl. A collection costs 1-20 ms of CPU
// however little is live, so what matters is how often it runs. The
// collector gets, between two collections, the garbage the tool makes in
// gcSpacing at the rate it allocated since the last one (at least
// gcMinHeadroom): a tool allocating fast (the demo crawl, 1,500 pages/s)
// collects at most about four times a second, and one allocating slowly
// (a broad crawl waiting on its hosts' politeness) keeps its heap near
// what it holds rather than at five times it (docs/performance.md). The
// headroom is capped by a ceiling: up to gcHeadroom of garbage, GOGC=400
// while the live heap is small, falling to 100 as it grows past
// gcHeadroom, so that a tool holding much (a 50 MB sitemap, a large page)
// does not grow to five times its live heap. The percent is set again
// after every collection; before the first, it is Go's default.
//
// While one large input is processed (TightGC), the headroom is
// gcTightHeadroom instead, the percent between gcTightMinPercent and 100.
const (
	gcMaxPercent      = 400
	gcMinPercent      = 25
	gcHeadroom        = 128 << 20
	gcMinHeadroom     = 4 << 20
	gcSpacing         = 250 * time.Millisecond
	gcTightHeadroom   = 4 << 20
	gcTightMinPercent = 5
	// goHeapMinimum is Go's least heap goal at GOGC=100: at GOGC=p the
	// goal is never under goHeapMinimum*p/100.
	goHeapMinimum = 4 << 20
)

// tuneGC starts the tuning above where the environment sets no GOGC.
func tuneGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(100)
	gcPercentNow.Store(100)
	gcTuned.Store(true)
	armGCTuner(&gcTuner{at: time.Now()})
}

var (
	gcPercentNow atomic.Int64
	gcRateNow    atomic.Uint64 // bytes allocated a second, over the last cycle
	gcTuned      atomic.Bool   // tuneGC started the tuning
	gcTight      atomic.Int64  // TightGC calls not ended
)

// TightGC leaves about gcTightHeadroom of garbage between collections,
// not gcHeadroom, until the returned function is called: for the work on
// one large input, such as a 50 MB sitemap, that holds the input and
// makes much short-lived garbage, and would otherwise grow to twice or
// three times what it holds. It does nothing where the environment sets
// GOGC. (Racing with onGC, the percent may lag until the next collection.)
func TightGC() (end func()) {
	if !gcTuned.Load() {
		return func() {}
	}
	gcTight.Add(1)
	setGCPercent(gcPercentForLive(make([]metrics.Sample, 1)))
	return func() {
		gcTight.Add(-1)
		setGCPercent(gcPercentForLive(make([]metrics.Sample, 1)))
	}
}

func setGCPercent(p int64) {
	if p != gcPercentNow.Load() {
		debug.SetGCPercent(int(p))
		gcPercentNow.Store(p)
	}
}

// gcTuner is an object whose finalizer runs once after each collection
// (it re-arms itself), the hook Go offers for "after a GC". It keeps when
// the last collection ran and how much had been allocated by then.
type gcTuner struct {
	at     time.Time
	allocs uint64
}

func armGCTuner(t *gcTuner) { runtime.SetFinalizer(t, onGC) }

var (
	liveSample  = make([]metrics.Sample, 1) // onGC's
	allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
)

func onGC(t *gcTuner) {
	now := time.Now()
	metrics.Read(allocSample)
	if allocSample[0].Value.Kind() == metrics.KindUint64 {
		allocs := allocSample[0].Value.Uint64()
		if d := now.Sub(t.at); d > 0 && allocs >= t.allocs {
			gcRateNow.Store(uint64(float64(allocs-t.allocs) / d.Seconds()))
		}
		t.at, t.allocs = now, allocs
	}
	setGCPercent(gcPercentForLive(liveSample))
	armGCTuner(t)
}

// gcPercentForLive is the percent for the live heap (read into sample):
// gcPercentFor, or gcTightPercentFor while TightGC is in effect.
func gcPercentForLive(sample []metrics.Sample) int64 {
	sample[0].Name = "/gc/heap/live:bytes"
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return gcPercentNow.Load()
	}
	if gcTight.Load() > 0 {
		return gcTightPercentFor(sample[0].Value.Uint64())
	}
	return gcPercentFor(sample[0].Value.Uint64(), gcRateNow.Load())
}

// gcPercentFor is the GOGC for a live heap of live bytes and an
// allocation rate of rate bytes a second: the one that leaves about
// gcSpacing's allocations of garbage (at least gcMinHeadroom), but never
// more than gcCeilingFor's, nor under gcMinPercent (a collection marks
// what is live: over a large live heap it is not run for little).
func gcPercentFor(live, rate uint64) int64 {
	headroom := max(rate*uint64(gcSpacing/time.Millisecond)/1000, gcMinHeadroom)
	// The goal is the larger of live*(1+p/100) and Go's minimum heap at
	// p: the percent whose goal is live+headroom is the smaller of the
	// two that give it.
	p := int64((live + headroom) * 100 / goHeapMinimum)
	if live > 0 {
		p = min(p, int64(headroom*100/live))
	}
	return max(min(p, gcCeilingFor(live)), gcMinPercent)
}

// gcCeilingFor is the most GOGC for a live heap of live bytes: the one
// that leaves about gcHeadroom of garbage above it, between 100 and
// gcMaxPercent.
func gcCeilingFor(live uint64) int64 {
	if live == 0 {
		return gcMaxPercent
	}
	return min(max(int64(gcHeadroom*100/live), 100), gcMaxPercent)
}

// gcTightPercentFor is the GOGC that leaves about gcTightHeadroom of
// garbage above a live heap of live bytes, between gcTightMinPercent and
// 100.
func gcTightPercentFor(live uint64) int64 {
	if live == 0 {
		return 100
	}
	return min(max(int64(gcTightHeadroom*100/live), gcTightMinPercent), 100)
}
