package cthrottle

import (
	"cmp"
	"container/heap"
	"slices"
	"time"
)

// waiting is the releaser's records, earliest first (ties in input
// order), with each throttled key's records in input order beside the
// heap. A key's records keep their order whatever slot each was given:
// when one comes in with a slot before an earlier record's (a record sent
// back to wait out a hold, reserved again after records reserved since),
// the key's slots are dealt out again in input order. The slots are the
// key's own, so the rate is what it was.
type waiting struct {
	h     itemHeap
	byKey map[string][]*item // a throttled key's records, in input order
	moved func(it *item)     // called for each record deal gives another slot; may be nil
}

func newWaiting() *waiting { return &waiting{byKey: map[string][]*item{}} }

func (w *waiting) Len() int { return w.h.Len() }

// first is the next record to write.
func (w *waiting) first() *item { return w.h[0] }

// tracked reports whether it is one of its key's records beside the heap.
func tracked(it *item) bool { return it.class == classKeyed && !it.released }

// push adds a record.
func (w *waiting) push(it *item) {
	heap.Push(&w.h, it)
	if !tracked(it) {
		return
	}
	l := w.byKey[it.key]
	i := len(l)
	for i > 0 && l[i-1].seq > it.seq {
		i--
	}
	l = slices.Insert(l, i, it)
	w.byKey[it.key] = l
	if i > 0 && l[i-1].at.After(it.at) || i+1 < len(l) && it.at.After(l[i+1].at) {
		w.deal(l)
	}
}

// deal gives a key's slots to its records in input order: each record's
// time to write and its slot on the store's clock go together.
func (w *waiting) deal(l []*item) {
	type slot struct{ at, store time.Time }
	ss := make([]slot, len(l))
	for i, it := range l {
		ss[i] = slot{it.at, it.slot}
	}
	slices.SortStableFunc(ss, func(a, b slot) int { return a.at.Compare(b.at) })
	for i, it := range l {
		if !it.at.Equal(ss[i].at) {
			it.at, it.slot = ss[i].at, ss[i].store
			heap.Fix(&w.h, it.index)
			if w.moved != nil {
				w.moved(it)
			}
		}
	}
}

// pop removes and returns the next record to write.
func (w *waiting) pop() *item {
	it := heap.Pop(&w.h).(*item)
	w.untrack(it)
	return it
}

// remove takes a record out before its time.
func (w *waiting) remove(it *item) {
	heap.Remove(&w.h, it.index)
	w.untrack(it)
}

func (w *waiting) untrack(it *item) {
	if !tracked(it) {
		return
	}
	l := w.byKey[it.key]
	switch i := slices.Index(l, it); {
	case i == 0: // the usual case: a key's records go in order
		l = l[1:]
	case i > 0:
		l = slices.Delete(l, i, i+1)
	}
	if len(l) == 0 {
		delete(w.byKey, it.key)
	} else {
		w.byKey[it.key] = l
	}
}

// waitingKeys returns the keys with a record whose slot is after t.
func (w *waiting) waitingKeys(t time.Time) []string {
	var keys []string
	for key, l := range w.byKey {
		if l[len(l)-1].at.After(t) {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}

// before takes out and returns key's records whose slot is before t.
func (w *waiting) before(key string, t time.Time) []*item {
	var out []*item
	for _, it := range slices.Clone(w.byKey[key]) {
		if !it.at.Before(t) {
			break
		}
		w.remove(it)
		out = append(out, it)
	}
	return out
}

// itemHeap orders records by time to write, then input order.
type itemHeap []*item

func (h itemHeap) Len() int { return len(h) }
func (h itemHeap) Less(i, j int) bool {
	if c := h[i].at.Compare(h[j].at); c != 0 {
		return c < 0
	}
	return cmp.Less(h[i].seq, h[j].seq)
}
func (h itemHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *itemHeap) Push(x any) {
	it := x.(*item)
	it.index = len(*h)
	*h = append(*h, it)
}
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	it.index = -1
	*h = old[:len(old)-1]
	return it
}
