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
const (
	gcMaxPercent = 400
	gcHeadroom   = 128 << 20
)

// tuneGC starts the tuning above where the environment sets no GOGC.
func tuneGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(gcMaxPercent)
	gcPercentNow.Store(gcMaxPercent)
	armGCTuner(&gcTuner{})
}

var gcPercentNow atomic.Int64

// gcTuner is an object whose finalizer runs once after each collection
// (it re-arms itself), the hook Go offers for "after a GC".
type gcTuner struct{ _ byte }

func armGCTuner(t *gcTuner) { runtime.SetFinalizer(t, onGC) }

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

func onGC(t *gcTuner) {
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() == metrics.KindUint64 {
		if p := gcPercentFor(liveSample[0].Value.Uint64()); p != gcPercentNow.Load() {
			debug.SetGCPercent(int(p))
			gcPercentNow.Store(p)
		}
	}
	armGCTuner(t)
}

// gcPercentFor is the GOGC that leaves about gcHeadroom of garbage above
// a live heap of live bytes, between 100 and gcMaxPercent.
func gcPercentFor(live uint64) int64 {
	if live == 0 {
		return gcMaxPercent
	}
	return min(max(int64(gcHeadroom*100/live), 100), gcMaxPercent)
}
