package cli

import "testing"

func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name       string
		live, rate uint64
		want       int64
	}{
		{"nothing live, idle: Go's least heap", 0, 0, 100},
		{"nothing live, slow: at least 4 MB of headroom", 0, 12 * mb, 100},
		{"nothing live, 32 MB/s: 8 MB (a quarter second's)", 0, 32 * mb, 200},
		{"nothing live, fast: the ceiling", 0, 1 << 30, 400},
		{"5 MB live, slow (a broad crawl's cfetch once its fast hosts are done): 4 MB over it", 5 * mb, 2 * mb, 80},
		{"5 MB live, 40 MB/s: 10 MB over it", 5 * mb, 40 * mb, 200},
		{"4 MB live, fast (the demo crawl): the ceiling", 4 * mb, 100 * mb, 400},
		{"64 MB live, fast: the ceiling leaves 128 MB", 64 * mb, 1 << 30, 200},
		{"64 MB live, idle: not under the floor", 64 * mb, 0, 25},
		{"1 GB live, fast: the ceiling's least", 1 << 30, 10 << 30, 100},
		{"1 GB live, slow: the floor", 1 << 30, mb, 25},
	} {
		if got := gcPercentFor(tc.live, tc.rate); got != tc.want {
			t.Errorf("%s: gcPercentFor(%d MiB, %d MiB/s) = %d, want %d", tc.name, tc.live/mb, tc.rate/mb, got, tc.want)
		}
	}
}

func TestGCCeilingFor(t *testing.T) {
	for live, want := range map[uint64]int64{
		0:         400,
		4 << 20:   400,
		32 << 20:  400,
		64 << 20:  200,
		128 << 20: 100,
		1 << 30:   100,
	} {
		if got := gcCeilingFor(live); got != want {
			t.Errorf("gcCeilingFor(%d MiB) = %d, want %d", live>>20, got, want)
		}
	}
}
