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
// One transaction: purge expired crawls, reclaim expired leases, then serve
// the ready queues. The next queue is always the one with the highest head
// priority and, among those, the lowest turn; serving a queue gives it the
// next turn, the back of the line. Since that can only move a queue back,
// the first max ready queues (one indexed query) are the only ones a
// batch of max pops can reach; a heap replays the rotation among them.
func (f *SQLite) Pop(ctx context.Context, max int, lease time.Duration, now time.Time) ([]Leased, error) {
	if max <= 0 {
		return nil, nil
	}
	if lease <= 0 {
		return nil, fmt.Errorf("frontier: pop: lease duration must be positive, got %v", lease)
	}
	var out []Leased
	err := f.write(ctx, "pop", func(tx *sql.Tx, stats map[string]int64) error {
		out = out[:0]
		qs := queues{}
		if _, err := f.purgeExpiredTx(ctx, tx, now, qs, stats); err != nil {
			return err
		}
		if _, err := f.reclaimTx(ctx, tx, now, qs, stats); err != nil {
			return err
		}
		if err := qs.save(ctx, tx, f); err != nil {
			return err
		}
		var err error
		out, err = f.popTx(ctx, tx, max, now.Add(lease), qs)
		if err != nil {
			return err
		}
		stats[StatPopped] += int64(len(out))
		return qs.save(ctx, tx, f)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (f *SQLite) popTx(ctx context.Context, tx *sql.Tx, max int, deadline time.Time, qs queues) ([]Leased, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, crawl, host, queued, in_flight, dead, top, turn
		FROM frontier_queues WHERE queued > 0 ORDER BY top DESC, turn, id LIMIT ?`, max)
	if err != nil {
		return nil, err
	}
	ready := make(readyHeap, 0, max)
	for rows.Next() {
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
		err := pop.QueryRowContext(ctx, int64(nonce), deadlineMS, q.id).Scan(&id, &prio, &expiries, &raw)
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
	err := f.write(ctx, "reclaim", func(tx *sql.Tx, stats map[string]int64) error {
		qs := queues{}
		var err error
		if r, err = f.reclaimTx(ctx, tx, now, qs, stats); err != nil {
			return err
		}
		return qs.save(ctx, tx, f)
	})
	return r, err
}

// reclaimTx handles every lease expired at now (see Frontier.Reclaim).
func (f *SQLite) reclaimTx(ctx context.Context, tx *sql.Tx, now time.Time, qs queues, stats map[string]int64) (ReclaimResult, error) {
	var r ReclaimResult
	rows, err := tx.QueryContext(ctx, `SELECT e.id, e.queue, e.prio, e.expiries, c.state
		FROM frontier_entries e JOIN frontier_queues q ON q.id = e.queue JOIN frontier_crawls c ON c.id = q.crawl
		WHERE e.state = 1 AND e.deadline <= ?`, now.UnixMilli())
	if err != nil {
		return r, err
	}
	type expired struct {
		id, queue, prio int64
		expiries, crawl int
	}
	var list []expired
	for rows.Next() {
		var x expired
		if err := rows.Scan(&x.id, &x.queue, &x.prio, &x.expiries, &x.crawl); err != nil {
			rows.Close()
			return r, err
		}
		list = append(list, x)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return r, err
	}
	max := f.opts.maxExpiries()
	for _, x := range list {
		q, err := qs.get(ctx, tx, f, x.queue)
		if err != nil {
			return r, err
		}
		q.inFlight--
		q.dirty = true
		switch {
		case x.crawl != crActive:
			_, err = tx.ExecContext(ctx, `DELETE FROM frontier_entries WHERE id = ?`, x.id)
			r.Dropped++
		case max > 0 && x.expiries+1 >= max:
			_, err = tx.ExecContext(ctx, `UPDATE frontier_entries SET state = 2, deadline = 0, expiries = expiries + 1 WHERE id = ?`, x.id)
			q.dead++
			r.DeadLettered++
		default:
			_, err = tx.ExecContext(ctx, `UPDATE frontier_entries SET state = 0, deadline = 0, expiries = expiries + 1 WHERE id = ?`, x.id)
			q.requeued(x.prio)
			r.Requeued++
		}
		if err != nil {
			return r, err
		}
	}
	stats[StatRequeued] += int64(r.Requeued)
	stats[StatDeadLettered] += int64(r.DeadLettered)
	stats[StatDropped] += int64(r.Dropped)
	return r, nil
}
