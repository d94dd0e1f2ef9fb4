package cthrottle

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/crawlutils/crawlutils/internal/throttle"
)

// run is a key's consecutive records with one rate and max wait: one
// Request.
type run struct {
	key   string
	items []*item
}

// reserveRuns reserves the slots of items (each with its rate and max
// wait set), keeping each key's order: a key's consecutive records with
// one rate and max wait form a run, and the runs are reserved one round
// per run, every key at once, so a key's later run is reserved after its
// earlier one. For each record it calls granted (with its wait, the time
// the answer arrived and its slot on the store's clock) or refused (with
// how far ahead its slot would have been). stop is asked before each
// round; once it says so, or on a store error (returned), the records not
// answered yet are returned, in input order.
func reserveRuns(ctx context.Context, store throttle.Store, items []*item,
	granted func(it *item, wait time.Duration, arrived, slot time.Time),
	refused func(it *item, wait time.Duration),
	stop func() bool) (unanswered []*item, err error) {
	runs := map[string][]*run{}
	var order []string
	for _, it := range items {
		rs := runs[it.key]
		if len(rs) == 0 {
			order = append(order, it.key)
		}
		if len(rs) == 0 {
			rs = append(rs, &run{key: it.key})
		} else if last := rs[len(rs)-1].items[0]; last.maxWait != it.maxWait || last.rate != it.rate {
			rs = append(rs, &run{key: it.key})
		}
		runs[it.key] = rs
		last := rs[len(rs)-1]
		last.items = append(last.items, it)
	}
	// from returns every record of round r on, in input order.
	from := func(r int) []*item {
		var left []*item
		for _, key := range order {
			rs := runs[key]
			for _, run := range rs[min(r, len(rs)):] {
				left = append(left, run.items...)
			}
		}
		slices.SortFunc(left, func(a, b *item) int { return cmp.Compare(a.seq, b.seq) })
		return left
	}
	for round := 0; ; round++ {
		if stop() {
			return from(round), nil
		}
		var reqs []throttle.Request
		var these []*run
		for _, key := range order {
			if rs := runs[key]; round < len(rs) {
				r := rs[round]
				first := r.items[0]
				reqs = append(reqs, throttle.Request{Key: key, N: len(r.items), Rate: first.rate, MaxWait: first.maxWait})
				these = append(these, r)
			}
		}
		if len(reqs) == 0 {
			return nil, nil
		}
		reply, err := store.Reserve(ctx, reqs, time.Now())
		arrived := time.Now()
		if err != nil {
			return from(round), err
		}
		for i, r := range these {
			g := reply.Grants[i]
			for j, it := range r.items {
				if j >= g.Granted {
					refused(it, g.Wait(g.Granted))
					continue
				}
				w := g.Wait(j)
				granted(it, w, arrived, reply.Now.Add(w))
			}
		}
	}
}
