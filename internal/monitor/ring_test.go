package monitor

import (
	"runtime"
	"testing"
)

// TestRingKeepsTheNewest: a ring keeps its newest capacity points, oldest
// first, through the growth of its buffer and its wrapping.
func TestRingKeepsTheNewest(t *testing.T) {
	t.Parallel()
	for _, capacity := range []int{1, 3, 64, 65, 200} {
		r := newRing(capacity)
		for i := range 500 {
			r.add(Point{T: int64(i)})
			got := r.last(0)
			want := min(i+1, capacity)
			if len(got) != want || got[0].T != int64(i+1-want) || got[len(got)-1].T != int64(i) {
				t.Fatalf("capacity %d after %d adds: %d points, %v…%v", capacity, i+1, len(got), got[0], got[len(got)-1])
			}
			if cap(r.buf) > capacity {
				t.Fatalf("capacity %d: a buffer of %d", capacity, cap(r.buf))
			}
		}
		if got := r.last(2); capacity >= 2 && (len(got) != 2 || got[1].T != 499) {
			t.Errorf("capacity %d: last(2) = %v", capacity, got)
		}
	}
}

// TestSeriesHoldWhatTheyKeep: the histories of 10 crawls kept for a
// million samples each take memory as they fill, not a million points
// each at once (80 MB a crawl: with 200 crawls and a day of samples
// cqueue serve counted gigabytes as live, and let its garbage grow to
// match).
func TestSeriesHoldWhatTheyKeep(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var keep []*series
	for range 10 {
		s := newSeries(1_000_000, 1440, 60_000_000_000)
		s.add(Point{T: 1})
		keep = append(keep, s)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 10<<20 {
		t.Errorf("10 histories of one point each allocated %d MB", grew>>20)
	}
	runtime.KeepAlive(keep)
}
