package frontier

import (
	"context"
	"fmt"
	"time"
)

// Join implements Frontier.
func (f *SQLite) Join(ctx context.Context, c Consumer, now time.Time) (Consumer, error) {
	c.ID = newConsumerID()
	err := f.write(ctx, "join", func(tx *ptx, _ map[string]int64) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO frontier_consumers (id, host, pid, boot, beat) VALUES (?, ?, ?, ?, ?)`,
			c.ID, c.Host, c.PID, c.Boot, now.UnixMilli())
		return err
	})
	if err != nil {
		return Consumer{}, err
	}
	return c, nil
}

// Beat implements Frontier.
func (f *SQLite) Beat(ctx context.Context, c Consumer, lease time.Duration, now time.Time) (int, error) {
	if c.ID == "" {
		return 0, fmt.Errorf("frontier: beat: consumer without id (not joined)")
	}
	var held int64
	err := f.write(ctx, "beat", func(tx *ptx, _ map[string]int64) error {
		if err := f.beatTx(ctx, tx, c, now); err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, `UPDATE frontier_entries SET deadline = ? WHERE state = 1 AND consumer = ? AND consumer != ''`,
			now.Add(lease).UnixMilli(), c.ID)
		if err != nil {
			return err
		}
		held, err = r.RowsAffected()
		return err
	})
	return int(held), err
}

// beatTx registers consumer c, or records its heartbeat at now.
func (f *SQLite) beatTx(ctx context.Context, tx *ptx, c Consumer, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO frontier_consumers (id, host, pid, boot, beat) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET beat = excluded.beat`, c.ID, c.Host, c.PID, c.Boot, now.UnixMilli())
	return err
}

// Leave implements Frontier.
func (f *SQLite) Leave(ctx context.Context, c Consumer, now time.Time) error {
	f.handed.forget(c.ID)
	return f.write(ctx, "leave", func(tx *ptx, stats map[string]int64) error {
		qs := queues{}
		if _, err := f.abandonTx(ctx, tx, c.ID, qs, stats); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM frontier_consumers WHERE id = ?`, c.ID); err != nil {
			return err
		}
		return qs.save(ctx, tx, f)
	})
}

// abandonDeadTx declares dead the consumers that are (see
// Options.ConsumerTimeout; with procs, also those whose process is gone),
// but not self (the one popping), abandons their leases and unregisters
// them.
func (f *SQLite) abandonDeadTx(ctx context.Context, tx *ptx, now time.Time, self string, procs bool, qs queues, stats map[string]int64) (ReclaimResult, error) {
	var r ReclaimResult
	rows, err := tx.QueryContext(ctx, `SELECT id, host, pid, boot, beat FROM frontier_consumers`)
	if err != nil {
		return r, err
	}
	var dead []string
	for rows.Next() {
		var c Consumer
		var beat int64
		if err := rows.Scan(&c.ID, &c.Host, &c.PID, &c.Boot, &beat); err != nil {
			rows.Close()
			return r, err
		}
		if c.ID != self && (f.opts.timedOut(time.UnixMilli(beat), now) || procs && processGone(c)) {
			dead = append(dead, c.ID)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return r, err
	}
	for _, id := range dead {
		a, err := f.abandonTx(ctx, tx, id, qs, stats)
		if err != nil {
			return r, err
		}
		r.Abandoned += a.Abandoned
		r.DeadLettered += a.DeadLettered
		r.Dropped += a.Dropped
		if _, err := tx.ExecContext(ctx, `DELETE FROM frontier_consumers WHERE id = ?`, id); err != nil {
			return r, err
		}
		stats[StatConsumerDied]++
	}
	return r, nil
}

// abandonTx returns the requests consumer id holds to their queue, with
// abandons+1 and no retry counted (the lease nonce is kept, so a late ack
// is still honoured until the request is handed out again); a request
// abandoned Options.MaxAbandons times is dead-lettered, one of a stopped
// or expired crawl dropped.
func (f *SQLite) abandonTx(ctx context.Context, tx *ptx, id string, qs queues, stats map[string]int64) (ReclaimResult, error) {
	if id == "" {
		return ReclaimResult{}, nil
	}
	abandoned, dead, dropped, err := f.returnTx(ctx, tx, `e.consumer = ? AND e.consumer != ''`, id, "abandons", f.opts.maxAbandons(), qs)
	stats[StatAbandoned] += int64(abandoned)
	stats[StatDeadLettered] += int64(dead)
	stats[StatDropped] += int64(dropped)
	return ReclaimResult{Abandoned: abandoned, DeadLettered: dead, Dropped: dropped}, err
}
