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
	// --debug: each slot given is said on stderr, which tells the test
	// when every record has one.
	r := start(t, "--db", db, "--rate", "10/s", "--max-wait", "30s", "--debug")
	var in []string
	for i := range 20 {
		in = append(in, fmt.Sprintf("http://a.test/%d", i))
	}
	for i := range 5 {
		in = append(in, fmt.Sprintf("http://b.test/%d", i))
	}
	r.write(t, in...)
	if u := urlOf(r.next(t)); u != "http://a.test/0" {
		t.Fatalf("first out: %s", u)
	}
	// The hold comes after a.test's records were given their slots (on a
	// busy machine cthrottle may still be reading them): those slots are
	// what it must take back.
	for strings.Count(r.stderr.String(), ": a.test: slot ") < 20 {
		select {
		case code := <-r.code:
			t.Fatalf("cthrottle exited (%d) before giving every record a slot:\n%s", code, r.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	store, err := throttle.OpenSQLite(context.Background(), db, throttle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	held := time.Now()
	holdEnd := held.Add(2500 * time.Millisecond)
	if err := store.Hold(context.Background(), "a.test", holdEnd, held); err != nil {
		t.Fatal(err)
	}
	r.in.Close()
	type out struct {
		url string
		at  time.Time
	}
	var got []out
	for range 24 {
		got = append(got, out{urlOf(r.next(t)), time.Now()})
	}
	if code := <-r.code; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, r.stderr.String())
	}
	// The hold is read within holdCheckEvery (+ slack for a busy
	// machine); a.test's records written after that wait for its end. The
	// times are when this test read the records, so a slow machine only
	// makes them later: each bound below is one a late read cannot break.
	readBy := held.Add(holdCheckEvery + 600*time.Millisecond)
	var a, b []string
	var after []time.Time // a.test's records written after the hold's end
	for _, o := range got {
		switch {
		case strings.HasPrefix(o.url, "http://a.test/"):
			a = append(a, o.url)
			if o.at.After(readBy) && o.at.Before(holdEnd.Add(-20*time.Millisecond)) {
				t.Errorf("%s written %v after the hold, before its end (%v)", o.url, o.at.Sub(held), holdEnd.Sub(held))
			}
			if o.at.After(holdEnd) {
				after = append(after, o.at)
			}
		default:
			b = append(b, o.url)
			if o.at.After(holdEnd) {
				t.Errorf("%s (not held) written %v after the hold, after its end", o.url, o.at.Sub(held))
			}
		}
	}
	// Released at 10/s, not all at once: the last of n comes at least
	// (n-1) × 100 ms after the hold's end (less a little for the clock).
	if n := len(after); n > 1 {
		if d := after[n-1].Sub(holdEnd); d < time.Duration(n-1)*100*time.Millisecond-50*time.Millisecond {
			t.Errorf("%d records of a.test written within %v of the hold's end: faster than 10/s", n, d)
		}
	}
	if want := strings.Join(in[1:20], " "); strings.Join(a, " ") != want {
		t.Errorf("a.test out of order:\n got %v\nwant %v", a, want)
	}
	if want := strings.Join(in[20:], " "); strings.Join(b, " ") != want {
		t.Errorf("b.test: got %v, want %v", b, want)
	}
	if !strings.Contains(r.stderr.String(), "holds: waited_out") {
		t.Errorf("stats do not count the records held again:\n%s", r.stderr.String())
	}
}
