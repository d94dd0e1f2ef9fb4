package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// The tools' garbage collector, unless GOGC says otherwise. A tool of the
// crawl loop keeps a few MB live and allocates fast (a record per page,
// decoded and encoded), so with Go's default (GOGC=100: collect when the
// heap doubles, from 4 MB) it collects every few milliseconds: a fifth of
// the loop's CPU in the demo crawl. So the collector gets up to gcHeadroom
// of garbage between two collections: GOGC=400 while the live heap is
// small, falling to 100 (the default) as it grows past gcHeadroom, so that
// a tool holding much (a 50 MB sitemap, a large page) does not grow to five
// times its live heap. The percent is set again after every collection.
//
// While one large input is processed (TightGC), the headroom is
// gcTightHeadroom instead, the percent between gcTightMinPercent and 100.
const (
	gcMaxPercent      = 400
	gcHeadroom        = 128 << 20
	gcTightHeadroom   = 4 << 20
	gcTightMinPercent = 5
)

// tuneGC starts the tuning above where the environment sets no GOGC.
func tuneGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(gcMaxPercent)
	gcPercentNow.Store(gcMaxPercent)
	gcTuned.Store(true)
	armGCTuner(&gcTuner{})
}

var (
	gcPercentNow atomic.Int64
	gcTuned      atomic.Bool  // tuneGC started the tuning
	gcTight      atomic.Int64 // TightGC calls not ended
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
// (it re-arms itself), the hook Go offers for "after a GC".
type gcTuner struct{ _ byte }

func armGCTuner(t *gcTuner) { runtime.SetFinalizer(t, onGC) }

var liveSample = make([]metrics.Sample, 1) // onGC's

func onGC(t *gcTuner) {
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
	return gcPercentFor(sample[0].Value.Uint64())
}

// gcPercentFor is the GOGC that leaves about gcHeadroom of garbage above
// a live heap of live bytes, between 100 and gcMaxPercent.
func gcPercentFor(live uint64) int64 {
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
