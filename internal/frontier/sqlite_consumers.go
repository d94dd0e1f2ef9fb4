package frontier

import (
	"context"
	"fmt"
	"sync"
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
	f.beats.forget(c.ID)
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

// popBeatSpacing is how far apart Pop writes one consumer's heartbeat at
// most. A pop that finds nothing to hand out then writes nothing at all:
// pop --follow looks every few milliseconds while the frontier is empty
// for it, and each heartbeat is a page in the WAL and, later, in the
// checkpoint. Liveness is judged over Options.ConsumerTimeout (30s), and
// pop --follow beats every few seconds besides (Beat).
const popBeatSpacing = time.Second

// beatLog remembers when this process last wrote each consumer's
// heartbeat in Pop. Safe for concurrent use; the zero value is ready.
type beatLog struct {
	mu sync.Mutex
	at map[string]time.Time
}

// due reports whether consumer id's heartbeat should be written at now.
func (b *beatLog) due(id string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	last, ok := b.at[id]
	return !ok || now.Before(last) || now.Sub(last) >= popBeatSpacing
}

// wrote records that id's heartbeat at now was committed.
func (b *beatLog) wrote(id string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.at == nil {
		b.at = map[string]time.Time{}
	}
	b.at[id] = now
}

// forget drops id (it left: its next pop registers it again).
func (b *beatLog) forget(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.at, id)
}

// Version implements Versioned: SQLite's data_version of the file.
func (f *SQLite) Version(ctx context.Context) (int64, error) {
	return f.dbh.DataVersion(ctx)
}
