package cli

import "testing"

func TestGCTightPercentFor(t *testing.T) {
	for live, want := range map[uint64]int64{
		0:         100,
		2 << 20:   100,
		4 << 20:   100,
		16 << 20:  25,
		40 << 20:  10,
		64 << 20:  6,
		100 << 20: 5,
		1 << 30:   5,
	} {
		if got := gcTightPercentFor(live); got != want {
			t.Errorf("gcTightPercentFor(%d MiB) = %d, want %d", live>>20, got, want)
		}
	}
}

// Where the tuning is off (GOGC set, or not a command), TightGC leaves
// the collector alone.
func TestTightGCWithoutTuning(t *testing.T) {
	if gcTuned.Load() {
		t.Skip("the tuning is on")
	}
	end := TightGC()
	if gcTight.Load() != 0 || gcPercentNow.Load() != 0 {
		t.Fatalf("TightGC without the tuning: %d in effect, percent %d", gcTight.Load(), gcPercentNow.Load())
	}
	end()
}
