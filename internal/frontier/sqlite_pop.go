package frontier

import (
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Pop implements Frontier.
//
// One transaction: purge expired crawls, reclaim expired leases and those
// of dead consumers, then serve the ready queues. The next queue is always
// the one with the highest head priority and, among those, the lowest
// turn; serving a queue gives it the next turn, the back of the line.
// Since that can only move a queue back, the first max ready queues (one
// indexed query) are the only ones a batch of max pops can reach; a heap
// replays the rotation among them.
func (f *SQLite) Pop(ctx context.Context, o PopOptions, now time.Time) (PopResult, error) {
	if o.Max <= 0 {
		return PopResult{}, nil
	}
	if o.Lease <= 0 {
		return PopResult{}, fmt.Errorf("frontier: pop: lease duration must be positive, got %v", o.Lease)
	}
	var res PopResult
	beat := o.Consumer.ID != "" && f.beats.due(o.Consumer.ID, now)
	err := f.write(ctx, "pop", func(tx *ptx, stats map[string]int64) error {
		res = PopResult{}
		qs := queues{}
		if _, err := f.purgeExpiredTx(ctx, tx, now, qs, stats); err != nil {
			return err
		}
		// Dead consumers first: their leases are abandoned, not expired.
		if _, err := f.abandonDeadTx(ctx, tx, now, o.Consumer.ID, f.procs.due(now, false), qs, stats); err != nil {
			return err
		}
		if _, err := f.reclaimTx(ctx, tx, now, qs, stats); err != nil {
			return err
		}
		if err := qs.save(ctx, tx, f); err != nil {
			return err
		}
		max := o.Max
		c := o.Consumer
		var byQueue map[int64]int // with o.HostWindow: what the consumer holds of each queue
		if c.ID != "" {
			if beat {
				if err := f.beatTx(ctx, tx, c, now); err != nil {
					return err
				}
			}
			var err error
			counted := 0 // what counts against the window
			if o.horizonOn() {
				res.Held, counted, byQueue, err = f.heldRecentTx(ctx, tx, c.ID, o.HostWindow > 0, now.Add(-o.Horizon))
			} else {
				res.Held, byQueue, err = f.heldTx(ctx, tx, c.ID, o.HostWindow > 0)
				counted = res.Held
			}
			if err != nil {
				return err
			}
			if o.Window > 0 {
				max = min(max, o.Window-counted)
			}
		}
		if max > 0 {
			var err error
			res.Leased, err = f.popTx(ctx, tx, max, now.Add(o.Lease), c.ID, qs, o.HostWindow, byQueue)
			if err != nil {
				return err
			}
		}
		if c.ID != "" {
			res.Held += len(res.Leased)
		}
		stats[StatPopped] += int64(len(res.Leased))
		if len(res.Leased) == 0 {
			var busy bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM frontier_queues WHERE queued > 0 OR in_flight > 0)`).Scan(&busy); err != nil {
				return err
			}
			res.Done = !busy
		}
		return qs.save(ctx, tx, f)
	})
	if err != nil {
		return PopResult{}, err
	}
	if beat {
		f.beats.wrote(o.Consumer.ID, now)
	}
	if o.horizonOn() {
		f.handed.add(o.Consumer.ID, res.Leased, now)
	}
	return res, nil
}

// heldTx returns how many requests consumer holds in flight and, when
// byQueue is asked for, how many of each queue: one pass over the
// consumer's leases (frontier_entries_consumer), at most its window.
func (f *SQLite) heldTx(ctx context.Context, tx *ptx, consumer string, perQueue bool) (held int, byQueue map[int64]int, err error) {
	if !perQueue {
		err = tx.QueryRowContext(ctx, `SELECT count(*) FROM frontier_entries WHERE state = 1 AND consumer = ? AND consumer != ''`,
			consumer).Scan(&held)
		return held, nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT queue, count(*) FROM frontier_entries WHERE state = 1 AND consumer = ? AND consumer != '' GROUP BY queue`, consumer)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	byQueue = map[int64]int{}
	for rows.Next() {
		var q int64
		var n int
		if err := rows.Scan(&q, &n); err != nil {
			return 0, nil, err
		}
		held += n
		byQueue[q] = n
	}
	return held, byQueue, rows.Err()
}

// popTx leases up to max requests, in queue turns. With hostWindow (and
// byQueue, what the consumer holds of each queue), a queue the consumer
// holds hostWindow of, or comes to in this batch, is passed over: the
// first max ready queues that are not at their window are the only ones
// the batch can reach, and they are among the first max + full.
func (f *SQLite) popTx(ctx context.Context, tx *ptx, max int, deadline time.Time, consumer string, qs queues, hostWindow int, byQueue map[int64]int) ([]Leased, error) {
	capped := hostWindow > 0 && byQueue != nil
	full := 0
	if capped {
		for _, n := range byQueue {
			if n >= hostWindow {
				full++
			}
		}
	}
	// No LIMIT ?: SQLite's planner reads a bound LIMIT's value, so the
	// statement would be prepared again whenever max changes, which is at
	// nearly every pop. The index (frontier_queues_ready) yields the rows
	// in order, one step at a time: reading no further is the limit.
	rows, err := tx.QueryContext(ctx, `SELECT id, crawl, host, queued, in_flight, dead, top, turn
		FROM frontier_queues WHERE queued > 0 ORDER BY top DESC, turn, id`)
	if err != nil {
		return nil, err
	}
	ready := make(readyHeap, 0, max)
	for read := 0; read < max+full && rows.Next(); read++ {
		q := &queueRow{}
		if err := rows.Scan(&q.id, &q.crawl, &q.host, &q.queued, &q.inFlight, &q.dead, &q.top, &q.turn); err != nil {
			rows.Close()
			return nil, err
		}
		// qs holds the rows this transaction changed (reclaim, purge); they
		// were saved before this query, so the two agree.
		if cached, ok := qs[q.id]; ok {
			q = cached
		} else {
			qs[q.id] = q
		}
		if capped && byQueue[q.id] >= hostWindow {
			continue
		}
		ready = append(ready, q)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ready) == 0 {
		return nil, nil
	}
	heap.Init(&ready)
	turn, err := f.getMeta(ctx, tx, metaTurn)
	if err != nil {
		return nil, err
	}
	hosts := map[int64]string{}
	crawlNames := map[int64]string{}
	pop := tx.StmtContext(ctx, f.st.popHead)
	next := tx.StmtContext(ctx, f.st.nextTop)
	deadlineMS := deadline.UnixMilli()
	out := make([]Leased, 0, max)

	for len(out) < max && len(ready) > 0 {
		q := ready[0]
		if q.staleTop {
			// Its head was popped earlier in this batch: the real top is
			// at most the stale one, so it can only move back in line.
			if err := next.QueryRowContext(ctx, q.id).Scan(&q.top); err != nil {
				return nil, err
			}
			q.staleTop = false
			heap.Fix(&ready, 0)
			continue
		}
		nonce := newNonce()
		var id, prio int64
		var expiries int
		var raw []byte
		err := pop.QueryRowContext(ctx, int64(nonce), deadlineMS, consumer, q.id).Scan(&id, &prio, &expiries, &raw)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("queue %d counts %d queued requests but has none (counters out of step)", q.id, q.queued)
		}
		if err != nil {
			return nil, err
		}
		lease := formatLease(id, nonce)
		body, err := handout(raw, lease, expiries)
		if err != nil {
			return nil, fmt.Errorf("request %d: %v", id, err)
		}
		if _, ok := crawlNames[q.crawl]; !ok {
			var name string
			if err := tx.QueryRowContext(ctx, `SELECT crawlid FROM frontier_crawls WHERE id = ?`, q.crawl).Scan(&name); err != nil {
				return nil, err
			}
			crawlNames[q.crawl] = name
		}
		hosts[q.id] = q.host
		out = append(out, Leased{Lease: lease, Raw: body, Deadline: time.UnixMilli(deadlineMS), CrawlID: crawlNames[q.crawl], Host: q.host, Priority: int(prio)})

		turn++
		q.queued--
		q.inFlight++
		q.turn = turn
		q.dirty = true
		if q.queued == 0 {
			heap.Pop(&ready)
			continue
		}
		if capped {
			if byQueue[q.id]++; byQueue[q.id] >= hostWindow {
				// At its window: passed over for the rest of the batch.
				q.staleTop = true // its top is recomputed when it is saved
				heap.Pop(&ready)
				continue
			}
		}
		// Its new head priority is needed only if it comes up again in
		// this batch, or when saved: computed lazily.
		q.staleTop = true
		heap.Fix(&ready, 0)
	}
	return out, f.setMeta(ctx, tx, metaTurn, turn)
}

// readyHeap orders queues as frontier_queues_ready does.
type readyHeap []*queueRow

func (h readyHeap) Len() int { return len(h) }
func (h readyHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.top != b.top {
		return a.top > b.top
	}
	if a.turn != b.turn {
		return a.turn < b.turn
	}
	return a.id < b.id
}
func (h readyHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)   { *h = append(*h, x.(*queueRow)) }
func (h *readyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Reclaim implements Frontier.
func (f *SQLite) Reclaim(ctx context.Context, now time.Time) (ReclaimResult, error) {
	var r ReclaimResult
	err := f.write(ctx, "reclaim", func(tx *ptx, stats map[string]int64) error {
		qs := queues{}
		a, err := f.abandonDeadTx(ctx, tx, now, "", f.procs.due(now, true), qs, stats)
		if err != nil {
			return err
		}
		if r, err = f.reclaimTx(ctx, tx, now, qs, stats); err != nil {
			return err
		}
		r.Abandoned = a.Abandoned
		r.DeadLettered += a.DeadLettered
		r.Dropped += a.Dropped
		return qs.save(ctx, tx, f)
	})
	return r, err
}

// reclaimTx handles every lease expired at now (see Frontier.Reclaim).
func (f *SQLite) reclaimTx(ctx context.Context, tx *ptx, now time.Time, qs queues, stats map[string]int64) (ReclaimResult, error) {
	requeued, dead, dropped, err := f.returnTx(ctx, tx, `e.deadline <= ?`, now.UnixMilli(), "expiries", f.opts.maxExpiries(), qs)
	stats[StatRequeued] += int64(requeued)
	stats[StatDeadLettered] += int64(dead)
	stats[StatDropped] += int64(dropped)
	return ReclaimResult{Requeued: requeued, DeadLettered: dead, Dropped: dropped}, err
}

// returnTx takes the in-flight entries matching where (with arg) out of
// flight, adding one to their counter column (expiries or abandons): back
// to their queue, or dead-lettered when the counter reaches max (> 0), or
// dropped when their crawl was stopped or expired.
func (f *SQLite) returnTx(ctx context.Context, tx *ptx, where string, arg any, counter string, max int, qs queues) (requeued, dead, dropped int, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT e.id, e.queue, e.prio, e.`+counter+`, c.state
		FROM frontier_entries e JOIN frontier_queues q ON q.id = e.queue JOIN frontier_crawls c ON c.id = q.crawl
		WHERE e.state = 1 AND `+where, arg)
	if err != nil {
		return 0, 0, 0, err
	}
	type entry struct {
		id, queue, prio int64
		n, crawl        int
	}
	var list []entry
	for rows.Next() {
		var x entry
		if err := rows.Scan(&x.id, &x.queue, &x.prio, &x.n, &x.crawl); err != nil {
			rows.Close()
			return 0, 0, 0, err
		}
		list = append(list, x)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, 0, err
	}
	for _, x := range list {
		q, err := qs.get(ctx, tx, f, x.queue)
		if err != nil {
			return requeued, dead, dropped, err
		}
		q.inFlight--
		q.dirty = true
		switch {
		case x.crawl != crActive:
			_, err = tx.ExecContext(ctx, `DELETE FROM frontier_entries WHERE id = ?`, x.id)
			dropped++
		case max > 0 && x.n+1 >= max:
			_, err = tx.ExecContext(ctx, `UPDATE frontier_entries SET state = 2, deadline = 0, consumer = '', `+counter+` = `+counter+` + 1 WHERE id = ?`, x.id)
			q.dead++
			dead++
		default:
			_, err = tx.ExecContext(ctx, `UPDATE frontier_entries SET state = 0, deadline = 0, consumer = '', `+counter+` = `+counter+` + 1 WHERE id = ?`, x.id)
			q.requeued(x.prio)
			requeued++
		}
		if err != nil {
			return requeued, dead, dropped, err
		}
	}
	return requeued, dead, dropped, nil
}
