package cqueue

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// TestStallWatch: pop --follow says so when requests stay in flight with
// no ack and nothing handed out for a minute, once a minute, and is quiet
// while acks come or requests are handed out.
func TestStallWatch(t *testing.T) {
	var stderr bytes.Buffer
	tool := cli.NewTool("cqueue", &stderr)
	var w stallWatch
	t0 := time.Unix(1_000_000, 0)
	leased := frontier.PopResult{Leased: make([]frontier.Leased, 3), Held: 3}
	held := func(n int) frontier.PopResult { return frontier.PopResult{Held: n} }
	steps := []struct {
		at   time.Duration
		res  frontier.PopResult
		warn bool
	}{
		{0, leased, false},
		{30 * time.Second, held(3), false},
		{59 * time.Second, held(2), false}, // an ack: progress
		{110 * time.Second, held(2), false},
		{119 * time.Second, held(2), true}, // a minute since the ack
		{150 * time.Second, held(2), false},
		{179 * time.Second, held(2), true}, // and again a minute later
		{180 * time.Second, held(0), false},
		{300 * time.Second, held(0), false}, // nothing in flight: nothing to say
	}
	warnings := 0
	for i, s := range steps {
		before := stderr.Len()
		w.observe(tool, s.res, t0.Add(s.at))
		got := stderr.Len() > before
		if got != s.warn {
			t.Errorf("step %d (%v): warned %v, want %v; stderr: %s", i, s.at, got, s.warn, stderr.String())
		}
		if got {
			warnings++
		}
	}
	if !strings.Contains(stderr.String(), "cqueue: warning: 2 requests in flight and none acked for 1m0s") {
		t.Errorf("stderr = %q", stderr.String())
	}
	if warnings != 2 {
		t.Errorf("%d warnings, want 2", warnings)
	}
}
