package cli

import "testing"

func TestGCPercentFor(t *testing.T) {
	for live, want := range map[uint64]int64{
		0:         400,
		4 << 20:   400,
		32 << 20:  400,
		64 << 20:  200,
		128 << 20: 100,
		1 << 30:   100,
	} {
		if got := gcPercentFor(live); got != want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", live>>20, got, want)
		}
	}
}
