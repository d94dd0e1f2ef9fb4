package cthrottle

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/throttle"
)

// TestRecordsGivenSlotsWaitOutALaterHold: records a cthrottle already
// holds with slots given out before a hold reaches the shared state (as
// cfetch writes one after a 429) are sent back to wait it out: none is
// written during the hold (past the time it takes to read it), they keep
// their order and the rate after it, and another host is not delayed.
func TestRecordsGivenSlotsWaitOutALaterHold(t *testing.T) {
	db := filepath.Join(t.TempDir(), "state.db")
	r := start(t, "--db", db, "--rate", "10/s", "--max-wait", "30s")
	var in []string
	for i := range 10 {
		in = append(in, fmt.Sprintf("http://a.test/%d", i))
	}
	for i := range 5 {
		in = append(in, fmt.Sprintf("http://b.test/%d", i))
	}
	r.write(t, in...)
	if u := urlOf(r.next(t)); u != "http://a.test/0" {
		t.Fatalf("first out: %s", u)
	}
	store, err := throttle.OpenSQLite(context.Background(), db, throttle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	held := time.Now()
	holdEnd := held.Add(1500 * time.Millisecond)
	if err := store.Hold(context.Background(), "a.test", holdEnd, held); err != nil {
		t.Fatal(err)
	}
	r.in.Close()
	type out struct {
		url string
		at  time.Time
	}
	var got []out
	for range 14 {
		got = append(got, out{urlOf(r.next(t)), time.Now()})
	}
	if code := <-r.code; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, r.stderr.String())
	}
	// The hold is read within holdCheckEvery (+ slack for a slow
	// machine); a.test's records written after that wait for its end.
	readBy := held.Add(holdCheckEvery + 150*time.Millisecond)
	var a, b []string
	var last time.Time
	for _, o := range got {
		switch {
		case strings.HasPrefix(o.url, "http://a.test/"):
			a = append(a, o.url)
			if o.at.After(readBy) && o.at.Before(holdEnd.Add(-20*time.Millisecond)) {
				t.Errorf("%s written %v after the hold, before its end (%v)", o.url, o.at.Sub(held), holdEnd.Sub(held))
			}
			if !last.IsZero() && o.at.After(holdEnd) && o.at.Sub(last) < 80*time.Millisecond {
				t.Errorf("%s written %v after the one before it: faster than 10/s", o.url, o.at.Sub(last))
			}
			last = o.at
		default:
			b = append(b, o.url)
			if o.at.Sub(held) > time.Second {
				t.Errorf("%s (not held) written %v after the hold", o.url, o.at.Sub(held))
			}
		}
	}
	if want := strings.Join(in[1:10], " "); strings.Join(a, " ") != want {
		t.Errorf("a.test out of order:\n got %v\nwant %v", a, want)
	}
	if want := strings.Join(in[10:], " "); strings.Join(b, " ") != want {
		t.Errorf("b.test: got %v, want %v", b, want)
	}
	if !strings.Contains(r.stderr.String(), "holds: waited_out") {
		t.Errorf("stats do not count the records held again:\n%s", r.stderr.String())
	}
}
