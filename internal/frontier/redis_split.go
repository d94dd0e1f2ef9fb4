package frontier

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage"
)

// A Redis frontier of K > 1 shards (see Redis): Apply and Pop routed to
// the shards, and what a pop remembers of them (split).

// applySplit is Apply over several shards: requests first, then what
// settles leases, so that nothing acked is ever without its follow-ups.
func (r *Redis) applySplit(ctx context.Context, b Batch, now time.Time) (BatchResult, error) {
	var out BatchResult
	k := len(r.shards)
	parts := make([]Batch, k)
	where := make([][]int, k) // shard → indexes of its entries in b.Entries
	for i := range b.Entries {
		if err := checkEntry(&b.Entries[i]); err != nil {
			return BatchResult{}, fmt.Errorf("frontier: push: entry %d: %v", i, err)
		}
		j := storage.ShardOf(b.Entries[i].Host, k)
		parts[j].Entries = append(parts[j].Entries, b.Entries[i])
		where[j] = append(where[j], i)
	}
	for _, l := range b.Acks {
		j, rest := r.shardOfLease(l)
		parts[j].Acks = append(parts[j].Acks, rest)
	}
	for _, fl := range b.Fails {
		j, rest := r.shardOfLease(fl.Lease)
		parts[j].Fails = append(parts[j].Fails, Fail{Lease: rest, Reason: fl.Reason})
	}
	for _, l := range b.Releases {
		j, rest := r.shardOfLease(l)
		parts[j].Releases = append(parts[j].Releases, rest)
	}
	if len(b.Entries) > 0 {
		out.Pushed = make([]PushResult, len(b.Entries))
	}
	settles := func(p Batch) bool { return len(p.Acks)+len(p.Fails)+len(p.Releases) > 0 }
	results := make([]BatchResult, k)
	for _, second := range []bool{false, true} {
		err := r.each(ctx, func(ctx context.Context, j int, s *redisShard) (err error) {
			if settles(parts[j]) != second || len(parts[j].Entries)+len(parts[j].Acks)+len(parts[j].Fails)+len(parts[j].Releases) == 0 {
				return nil
			}
			if r.split.applyHook != nil {
				r.split.applyHook(j, parts[j])
			}
			results[j], err = s.apply(ctx, parts[j], now)
			return err
		})
		if err != nil {
			return BatchResult{}, err
		}
	}
	for j, res := range results {
		for n, i := range where[j] {
			out.Pushed[i] = res.Pushed[n]
			if res.Pushed[n].Queued {
				r.split.raiseHead(j, r.shards[j].opts.queuePriority(&b.Entries[i]))
			}
		}
		out.Acks.Acked += res.Acks.Acked
		out.Acks.Unknown += res.Acks.Unknown
		out.Failed += res.Failed
		out.FailUnknown += res.FailUnknown
		out.Released += res.Released
		out.ReleaseUnknown += res.ReleaseUnknown
	}
	return out, nil
}

// popSplit is Pop over several shards, by priority across them, as each
// shard says what is at its head after every pop. The first round asks
// every shard at once: those whose head has the top priority share o.Max
// (the first of them, in turn, taking the odd ones), none below that
// priority, and the others are asked for nothing, which still reclaims
// and beats there and tells what is at their head now. Each later round
// asks the shards at the top priority left for what is still missing,
// until o.Max is reached or nothing is left. The requests are handed out
// highest priority first and, within one priority, interleaved (the
// first of each shard, then the second of each), so every shard's hosts
// take turns. What another process pushed is weighed from the next pop
// on.
func (r *Redis) popSplit(ctx context.Context, o PopOptions, now time.Time) (PopResult, error) {
	sp := r.split
	k := len(r.shards)
	start := int(sp.next.Add(1) % uint64(k))
	room := o.Max
	windowed := o.Consumer.ID != "" && o.Window > 0
	var gaveBack atomic.Int64 // PopResult.GaveBack, over the shards
	if windowed {
		room = min(room, o.Window-sp.heldElsewhere(o.Consumer.ID, -1))
		if room <= 0 {
			// Full, as the shards last said: acks since then (cqueue push
			// is another process) make room that only the shards know of.
			n, err := r.refreshHeld(ctx, o, now)
			if err != nil {
				return PopResult{}, err
			}
			gaveBack.Add(int64(n))
			room = min(o.Max, o.Window-sp.heldElsewhere(o.Consumer.ID, -1))
			if room <= 0 {
				return PopResult{Held: sp.heldElsewhere(o.Consumer.ID, -1), GaveBack: int(gaveBack.Load())}, nil
			}
		}
	}
	got := make([][]Leased, k)
	done := make([]bool, k)
	short := make([]bool, k) // it gave less than it was asked at its priority: no more this pop
	popShard := func(ctx context.Context, i, want int, floor *int) error {
		so := o
		so.Max = max(want, 1)
		ask := shardPop{full: want <= 0, floor: floor}
		if windowed {
			so.Window = o.Window - sp.heldElsewhere(o.Consumer.ID, i)
			ask.full = ask.full || so.Window <= 0
		}
		res, head, err := r.shards[i].pop(ctx, so, ask, now)
		if err != nil {
			return err
		}
		got[i] = append(got[i], res.Leased...)
		done[i] = len(got[i]) == 0 && res.Done
		// Short of what it was asked, and not for the floor (its head
		// still at or above it): empty, or its hosts at their window.
		belowFloor := floor != nil && head.known && !head.empty && head.prio < *floor
		short[i] = short[i] || (want > 0 && len(res.Leased) < want && !belowFloor)
		gaveBack.Add(int64(res.GaveBack))
		sp.setHeld(o.Consumer.ID, i, res.Held)
		sp.setHead(i, head)
		return nil
	}
	total := 0
	for round := 0; total < room && round <= 2*k; round++ {
		tops, floor := sp.tops(start, short)
		if len(tops) == 0 && round > 0 {
			break
		}
		share := make([]int, k)
		for n, i := range tops {
			share[i] = (room - total) / len(tops)
			if n < (room-total)%len(tops) {
				share[i]++
			}
		}
		before := make([]int, k)
		for i := range got {
			before[i] = len(got[i])
		}
		err := r.each(ctx, func(ctx context.Context, i int, _ *redisShard) error {
			if share[i] == 0 && round > 0 {
				return nil // asked what is at its head in the first round
			}
			return popShard(ctx, i, share[i], floor)
		})
		if err != nil {
			return PopResult{}, err
		}
		for i := range got {
			total += len(got[i]) - before[i]
		}
	}
	res := PopResult{GaveBack: int(gaveBack.Load()), Held: sp.heldElsewhere(o.Consumer.ID, -1), Done: total == 0}
	for i := range done {
		res.Done = res.Done && done[i]
	}
	if total == 0 {
		return res, nil
	}
	res.Leased = make([]Leased, 0, total)
	for pos := 0; len(res.Leased) < total; pos++ {
		for n := range k {
			if g := got[(start+n)%k]; pos < len(g) {
				res.Leased = append(res.Leased, g[pos])
			}
		}
	}
	slices.SortStableFunc(res.Leased, func(a, b Leased) int { return cmp.Compare(b.Priority, a.Priority) })
	return res, nil
}

// refreshHeld pops nothing from every shard, which reclaims, beats and
// says what consumer o.Consumer holds there; it returns how many
// requests the shards gave back (PopResult.GaveBack).
func (r *Redis) refreshHeld(ctx context.Context, o PopOptions, now time.Time) (int, error) {
	var gave atomic.Int64
	err := r.each(ctx, func(ctx context.Context, i int, s *redisShard) error {
		so := o
		so.Max = 1
		res, head, err := s.pop(ctx, so, shardPop{full: true}, now)
		if err == nil {
			r.split.setHeld(o.Consumer.ID, i, res.Held)
			r.split.setHead(i, head)
			gave.Add(int64(res.GaveBack))
		}
		return err
	})
	return int(gave.Load()), err
}

// tops returns the shards to ask next, in turn from shard start: those
// whose head (as they last said) has the top priority among the shards
// not short, and that priority as the floor; a shard not heard of yet
// counts as the top, and then there is no floor.
func (sp *split) tops(start int, short []bool) ([]int, *int) {
	var out []int
	var best shardHead
	sp.mu.Lock()
	defer sp.mu.Unlock()
	k := len(sp.heads)
	for n := range k {
		i := (start + n) % k
		h := sp.heads[i]
		switch {
		case short[i] || h.known && h.empty:
			continue
		case len(out) == 0 || !h.known && best.known || h.known && best.known && h.prio > best.prio:
			out, best = []int{i}, h
		case h == best || !h.known && !best.known:
			out = append(out, i)
		}
	}
	if len(out) == 0 || !best.known {
		return out, nil
	}
	floor := best.prio
	return out, &floor
}

// raiseHead records that a request of priority prio was queued in shard
// i: its head is at least that now.
func (sp *split) raiseHead(i, prio int) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if h := sp.heads[i]; h.known && (h.empty || h.prio < prio) {
		sp.heads[i] = shardHead{known: true, prio: prio}
	}
}

// setHead records what shard i said is at its head; a replayed pop's
// "not known" keeps what was known.
func (sp *split) setHead(i int, h shardHead) {
	if !h.known {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.heads[i] = h
}

// heldElsewhere is how many requests consumer id held in the shards but
// shard i (-1: in all), as each last said.
func (sp *split) heldElsewhere(id string, i int) int {
	if id == "" {
		return 0
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	n := 0
	for j, h := range sp.held[id] {
		if j != i {
			n += h
		}
	}
	return n
}

// setHeld records that consumer id holds n requests in shard i. A
// frontier of one shard (sp nil) keeps no count: its script does.
func (sp *split) setHeld(id string, i, n int) {
	if sp == nil || id == "" {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	h := sp.held[id]
	if h == nil {
		h = make([]int, len(sp.heads))
		sp.held[id] = h
	}
	h[i] = n
}

// forget drops consumer id's counts (it left).
func (sp *split) forget(id string) {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	delete(sp.held, id)
}
