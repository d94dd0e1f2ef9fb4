package cthrottle

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// How often the releaser reads the holds of the keys it holds records
// for, and how long it waits for the answer.
const (
	holdCheckEvery   = 250 * time.Millisecond
	holdCheckTimeout = 250 * time.Millisecond
)

// holdAgain sends back to wait out a hold the records whose slots were
// given out before the hold reached the state: it reads the holds of the
// keys with records still to come, takes out each held key's records
// whose slot is before its hold ends, and reserves their slots again (in
// input order, after the hold, one per interval); the waiting records
// then deal the key's slots in input order. A record whose new slot is
// past --max-wait overflows as a new one would. A store that cannot be
// read is warned about once; the records keep their slots.
func (p *pipeline) holdAgain(ctx context.Context, w *waiting) {
	keys := w.waitingKeys(time.Now())
	if len(keys) == 0 {
		return
	}
	bg := context.WithoutCancel(ctx)
	qctx, cancel := context.WithTimeout(bg, holdCheckTimeout)
	held, err := p.store.Holds(qctx, keys, time.Now())
	cancel()
	arrived := time.Now()
	if err != nil {
		p.warnHolds(err)
		return
	}
	var again []*item
	ends := map[string]time.Time{}
	for _, key := range keys {
		if d, ok := held[key]; ok {
			ends[key] = arrived.Add(d)
			again = append(again, w.before(key, ends[key])...)
		}
	}
	if len(again) == 0 {
		return
	}
	slices.SortFunc(again, func(a, b *item) int { return cmp.Compare(a.seq, b.seq) })
	p.tool.Stats.Count("holds", "waited_out", int64(len(again)))
	unanswered, err := reserveRuns(bg, p.store, again, func(it *item, wait time.Duration, arrived, slot time.Time) {
		at := arrived.Add(wait)
		if p.o.Debug {
			p.debugf("%s: %s: held: slot %s, wait %v (was %s)", it.pos, it.key, slotString(slot), wait, slotString(it.at))
		}
		it.wait += at.Sub(it.at)
		it.at, it.slot = at, slot
		w.push(it)
	}, func(it *item, wait time.Duration) {
		p.overflow(it, wait, it.maxWait)
	}, func() bool { return false })
	if err != nil {
		p.warnHolds(err)
		// Not before the hold's end, at least.
		for _, it := range unanswered {
			it.at = maxTime(it.at, ends[it.key])
			w.push(it)
		}
	}
}

// warnHolds reports, once, that the holds could not be read or acted on.
func (p *pipeline) warnHolds(err error) {
	if p.holdsTold.CompareAndSwap(false, true) {
		p.tool.Printf("warning: %v (records already given a slot keep it; holds are read again every %v)", trimPrefix(err), holdCheckEvery)
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
