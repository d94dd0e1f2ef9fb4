package cthrottle

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestWaitingKeepsAKeysOrder: records sent back to wait out a hold come
// back with later slots than records of their key reserved since; the
// key's slots are dealt out again in input order, other keys untouched.
func TestWaitingKeepsAKeysOrder(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	rec := func(seq uint64, key string, s float64) *item {
		return &item{class: classKeyed, key: key, seq: seq, at: at(s), index: -1}
	}
	w := newWaiting()
	a1, a2, a3 := rec(1, "a", 1), rec(2, "a", 2), rec(3, "a", 3)
	b4 := rec(4, "b", 1.5)
	pass := &item{class: classPass, seq: 5, index: -1}
	for _, it := range []*item{a1, a2, a3, b4, pass} {
		w.push(it)
	}
	if keys := w.waitingKeys(at(2.5)); strings.Join(keys, ",") != "a" {
		t.Fatalf("keys waiting past 2.5s: %v", keys)
	}
	back := w.before("a", at(2.5))
	if len(back) != 2 || back[0] != a1 || back[1] != a2 {
		t.Fatalf("before 2.5s: %v", back)
	}
	// Reserved again after the hold: later than a3's slot.
	a1.at, a2.at = at(5), at(6)
	w.push(a2)
	w.push(a1)
	var got []string
	for w.Len() > 0 {
		it := w.pop()
		if it.at.IsZero() {
			got = append(got, fmt.Sprintf("%d@once", it.seq))
		} else {
			got = append(got, fmt.Sprintf("%d@%v", it.seq, it.at.Sub(t0)))
		}
	}
	want := "5@once 4@1.5s 1@3s 2@5s 3@6s"
	if strings.Join(got, " ") != want {
		t.Errorf("written: %s\nwant     %s", strings.Join(got, " "), want)
	}
	if len(w.byKey) != 0 {
		t.Errorf("keys left: %v", w.byKey)
	}
}
