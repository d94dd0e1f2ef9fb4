package cli

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestEvery: fn runs again and again until stop, never after stop
// returns, and stop may be called twice.
func TestEvery(t *testing.T) {
	var n atomic.Int64
	stop := Every(time.Millisecond, func() { n.Add(1) })
	for deadline := time.Now().Add(time.Minute); n.Load() < 3; {
		if time.Now().After(deadline) {
			t.Fatal("fn did not run three times in a minute")
		}
		time.Sleep(time.Millisecond)
	}
	stop()
	after := n.Load()
	time.Sleep(10 * time.Millisecond)
	if n.Load() != after {
		t.Errorf("fn ran after stop returned")
	}
	stop()
}
