package frontier

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage"
)

// Sharded is the Redis frontier split over K slots (a Redis URL's
// shards=K), so that on a Redis Cluster one crawl's load spreads over the
// masters. Each shard is a whole Redis frontier under a prefix of its own
// (storage.ShardPrefixes), and a host's queue, with the host's share of
// the duplicate filter, lives in shard storage.ShardOf(host, K): every
// push, pop, ack and the reclaims they do still run as one script on one
// slot. A lease carries its shard ("3:ID.NONCE"). The crawls' metadata and
// run locks live under the unsplit prefix (the control slot).
//
// What a split gives up, as a Frontier: an Apply whose requests and acks
// fall in several shards is applied shard by shard, the shards that only
// get requests first and those with acks (each with its own requests, in
// one step) last, so that a crash midway can leave a page unacked with its
// follow-ups queued (it is fetched again, its links found seen), never
// acked with its follow-ups lost; Pop goes by priority across the shards
// as they said at its previous pop (see Pop), and hosts of one priority
// take turns within their shard, the shards taking turns. A consumer's
// Window is counted from what each shard last said it holds.
type Sharded struct {
	conn    *storage.RedisConn
	control *Redis   // the unsplit prefix: crawl metadata, run locks
	shards  []*Redis // shard i's frontier; its leases start "i:"
	next    atomic.Uint64

	mu    sync.Mutex
	held  map[string][]int // consumer id → requests it holds per shard, as last seen
	heads []shardHead      // what each shard last said is at its head (Pop)

	applyHook func(shard int, b Batch) // tests: called before each shard's part of an Apply
}

// Close implements Frontier.
func (s *Sharded) Close() error { return s.conn.Close() }

// Shards is how many shards s is split into.
func (s *Sharded) Shards() int { return len(s.shards) }

// shardOfLease returns the shard a lease is of and the lease as that
// shard's script knows it. A lease of no shard goes to shard 0 as a lease
// no script can match, so that it is counted unknown there, in the
// answer and in the stats, as an unsplit frontier counts it.
func (s *Sharded) shardOfLease(l string) (i int, rest string) {
	n, rest, found := strings.Cut(l, ":")
	i, err := strconv.Atoi(n)
	if !found || err != nil || i < 0 || i >= len(s.shards) || n != strconv.Itoa(i) {
		return 0, "!" + l
	}
	return i, rest
}

// Push implements Frontier.
func (s *Sharded) Push(ctx context.Context, entries []Entry, now time.Time) ([]PushResult, error) {
	res, err := s.Apply(ctx, Batch{Entries: entries}, now)
	return res.Pushed, err
}

// Ack implements Frontier.
func (s *Sharded) Ack(ctx context.Context, leases []string, now time.Time) (AckResult, error) {
	res, err := s.Apply(ctx, Batch{Acks: leases}, now)
	return res.Acks, err
}

// Apply implements Frontier, shard by shard (see Sharded).
func (s *Sharded) Apply(ctx context.Context, b Batch, now time.Time) (BatchResult, error) {
	var out BatchResult
	k := len(s.shards)
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
		j, rest := s.shardOfLease(l)
		parts[j].Acks = append(parts[j].Acks, rest)
	}
	for _, fl := range b.Fails {
		j, rest := s.shardOfLease(fl.Lease)
		parts[j].Fails = append(parts[j].Fails, Fail{Lease: rest, Reason: fl.Reason})
	}
	for _, l := range b.Releases {
		j, rest := s.shardOfLease(l)
		parts[j].Releases = append(parts[j].Releases, rest)
	}
	if len(b.Entries) > 0 {
		out.Pushed = make([]PushResult, len(b.Entries))
	}
	settles := func(p Batch) bool { return len(p.Acks)+len(p.Fails)+len(p.Releases) > 0 }
	results := make([]BatchResult, k)
	// Requests first, then what settles leases: nothing acked is ever
	// without its follow-ups.
	for _, second := range []bool{false, true} {
		err := s.each(ctx, func(ctx context.Context, j int, r *Redis) (err error) {
			if settles(parts[j]) != second || len(parts[j].Entries)+len(parts[j].Acks)+len(parts[j].Fails)+len(parts[j].Releases) == 0 {
				return nil
			}
			if s.applyHook != nil {
				s.applyHook(j, parts[j])
			}
			results[j], err = r.Apply(ctx, parts[j], now)
			return err
		})
		if err != nil {
			return BatchResult{}, err
		}
	}
	for j, r := range results {
		for n, i := range where[j] {
			out.Pushed[i] = r.Pushed[n]
			if r.Pushed[n].Queued {
				s.raiseHead(j, s.shards[j].opts.queuePriority(&b.Entries[i]))
			}
		}
		out.Acks.Acked += r.Acks.Acked
		out.Acks.Unknown += r.Acks.Unknown
		out.Failed += r.Failed
		out.FailUnknown += r.FailUnknown
		out.Released += r.Released
		out.ReleaseUnknown += r.ReleaseUnknown
	}
	return out, nil
}

// each runs fn on every shard at once (storage.InParallel) and returns
// the error of the first shard that failed.
func (s *Sharded) each(ctx context.Context, fn func(ctx context.Context, i int, r *Redis) error) error {
	return storage.InParallel(len(s.shards), func(i int) error { return fn(ctx, i, s.shards[i]) })
}

// Pop implements Frontier, by priority across the shards, as each shard
// says what is at its head after every pop. The first round asks every
// shard at once: those whose head has the top priority share o.Max (the
// first of them, in turn, taking the odd ones), none below that
// priority, and the others are asked for nothing, which still reclaims
// and beats there and tells what is at their head now. Each later round
// asks the shards at the top priority left for what is still missing,
// until o.Max is reached or nothing is left. The requests are handed out
// highest priority first and, within one priority, interleaved (the
// first of each shard, then the second of each), so every shard's hosts
// take turns. What another process pushed is weighed from the next pop
// on.
func (s *Sharded) Pop(ctx context.Context, o PopOptions, now time.Time) (PopResult, error) {
	if o.Max <= 0 {
		return PopResult{}, nil
	}
	k := len(s.shards)
	start := int(s.next.Add(1) % uint64(k))
	room := o.Max
	windowed := o.Consumer.ID != "" && o.Window > 0
	var gaveBack atomic.Int64 // PopResult.GaveBack, over the shards
	if windowed {
		room = min(room, o.Window-s.heldElsewhere(o.Consumer.ID, -1))
		if room <= 0 {
			// Full, as the shards last said: acks since then (cqueue push
			// is another process) make room that only the shards know of.
			n, err := s.refreshHeld(ctx, o, now)
			if err != nil {
				return PopResult{}, err
			}
			gaveBack.Add(int64(n))
			room = min(o.Max, o.Window-s.heldElsewhere(o.Consumer.ID, -1))
			if room <= 0 {
				return PopResult{Held: s.heldElsewhere(o.Consumer.ID, -1), GaveBack: int(gaveBack.Load())}, nil
			}
		}
	}
	got := make([][]Leased, k)
	done := make([]bool, k)
	short := make([]bool, k) // it gave less than it was asked at its priority: no more this pop
	popShard := func(ctx context.Context, i, want int, floor *int) error {
		so := o
		so.Max, so.full, so.floor = max(want, 1), want <= 0, floor
		if windowed {
			so.Window = o.Window - s.heldElsewhere(o.Consumer.ID, i)
			so.full = so.full || so.Window <= 0
		}
		r, err := s.shards[i].Pop(ctx, so, now)
		if err != nil {
			return err
		}
		got[i] = append(got[i], r.Leased...)
		done[i] = len(got[i]) == 0 && r.Done
		// Short of what it was asked, and not for the floor (its head
		// still at or above it): empty, or its hosts at their window.
		belowFloor := floor != nil && r.head.known && !r.head.empty && r.head.prio < *floor
		short[i] = short[i] || (want > 0 && len(r.Leased) < want && !belowFloor)
		gaveBack.Add(int64(r.GaveBack))
		s.setHeld(o.Consumer.ID, i, r.Held)
		s.setHead(i, r.head)
		return nil
	}
	total := 0
	for round := 0; total < room && round <= 2*k; round++ {
		tops, floor := s.tops(start, short)
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
		err := s.each(ctx, func(ctx context.Context, i int, _ *Redis) error {
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
	res := PopResult{GaveBack: int(gaveBack.Load()), Held: s.heldElsewhere(o.Consumer.ID, -1), Done: total == 0}
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

// tops returns the shards to ask next, in turn from shard start: those
// whose head (as they last said) has the top priority among the shards
// not short, and that priority as the floor; a shard not heard of yet
// counts as the top, and then there is no floor.
func (s *Sharded) tops(start int, short []bool) ([]int, *int) {
	var out []int
	var best shardHead
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := range len(s.shards) {
		i := (start + n) % len(s.shards)
		h := s.heads[i]
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
func (s *Sharded) raiseHead(i, prio int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.heads[i]; h.known && (h.empty || h.prio < prio) {
		s.heads[i] = shardHead{known: true, prio: prio}
	}
}

// setHead records what shard i said is at its head; a replayed pop's
// "not known" keeps what was known.
func (s *Sharded) setHead(i int, h shardHead) {
	if !h.known {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.heads[i] = h
}

// refreshHeld pops nothing from every shard, which reclaims, beats and
// says what consumer o.Consumer holds there; it returns how many
// requests the shards gave back (PopResult.GaveBack).
func (s *Sharded) refreshHeld(ctx context.Context, o PopOptions, now time.Time) (int, error) {
	var gave atomic.Int64
	err := s.each(ctx, func(ctx context.Context, i int, r *Redis) error {
		so := o
		so.Max, so.full = 1, true
		res, err := r.Pop(ctx, so, now)
		if err == nil {
			s.setHeld(o.Consumer.ID, i, res.Held)
			s.setHead(i, res.head)
			gave.Add(int64(res.GaveBack))
		}
		return err
	})
	return int(gave.Load()), err
}

// heldElsewhere is how many requests consumer id held in the shards but
// shard i (-1: in all), as each last said.
func (s *Sharded) heldElsewhere(id string, i int) int {
	if id == "" {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for j, h := range s.held[id] {
		if j != i {
			n += h
		}
	}
	return n
}

func (s *Sharded) setHeld(id string, i, n int) {
	if id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held[id]
	if h == nil {
		h = make([]int, len(s.shards))
		s.held[id] = h
	}
	h[i] = n
}

// Join implements Frontier: the consumer is registered in every shard
// under one id.
func (s *Sharded) Join(ctx context.Context, c Consumer, now time.Time) (Consumer, error) {
	c.ID = newConsumerID()
	err := s.each(ctx, func(ctx context.Context, _ int, r *Redis) error { return r.joinAs(ctx, c, now) })
	if err != nil {
		return Consumer{}, err
	}
	return c, nil
}

// Beat implements Frontier, in every shard.
func (s *Sharded) Beat(ctx context.Context, c Consumer, lease time.Duration, now time.Time) (int, error) {
	err := s.each(ctx, func(ctx context.Context, i int, r *Redis) error {
		n, err := r.Beat(ctx, c, lease, now)
		if err == nil {
			s.setHeld(c.ID, i, n)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	return s.heldElsewhere(c.ID, -1), nil
}

// Leave implements Frontier, in every shard.
func (s *Sharded) Leave(ctx context.Context, c Consumer, now time.Time) error {
	err := s.each(ctx, func(ctx context.Context, _ int, r *Redis) error { return r.Leave(ctx, c, now) })
	s.mu.Lock()
	delete(s.held, c.ID)
	s.mu.Unlock()
	return err
}
