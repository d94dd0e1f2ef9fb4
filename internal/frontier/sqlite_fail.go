package frontier

import (
	"context"
	"database/sql"
	"errors"
)

// sqliteDeadReasonsTable keeps the reason of each request dead-lettered by
// a fail (the others' reason follows from their counters, see deadReason);
// an ack of the dead request deletes it with the request. It is in the
// schema of a new file; a file made before it gets it from its first fail,
// so older programs still open it (the schema version is unchanged). An
// older program's late ack of a failed request leaves its reason behind,
// harmless: entry ids are never reused.
const sqliteDeadReasonsTable = `CREATE TABLE IF NOT EXISTS frontier_dead_reasons (
	id     INTEGER PRIMARY KEY, -- frontier_entries.id, dead
	reason TEXT NOT NULL
)`

// failTx dead-letters the requests of fails (see Frontier.Apply): those
// whose lease is their current or last one and that are not dead yet.
func (f *SQLite) failTx(ctx context.Context, tx *ptx, fails []Fail, qs queues, stats map[string]int64) (failed, unknown int, err error) {
	if len(fails) == 0 {
		return 0, 0, nil
	}
	if _, err := tx.ExecContext(ctx, sqliteDeadReasonsTable); err != nil {
		return 0, 0, err
	}
	for _, fl := range fails {
		id, nonce, ok := parseLease(fl.Lease)
		if !ok {
			unknown++
			continue
		}
		var queue int64
		var state int
		err := tx.QueryRowContext(ctx, `SELECT queue, state FROM frontier_entries WHERE id = ? AND lease = ? AND lease != 0 AND state != 2`,
			id, int64(nonce)).Scan(&queue, &state)
		if errors.Is(err, sql.ErrNoRows) {
			unknown++
			continue
		}
		if err != nil {
			return failed, unknown, err
		}
		q, err := qs.get(ctx, tx, f, queue)
		if err != nil {
			return failed, unknown, err
		}
		if state == stInFlight {
			q.inFlight--
		} else { // a late fail: the lease expired, the request was not handed out again
			q.queued--
			q.staleTop = true
		}
		q.dead++
		q.dirty = true
		if _, err := tx.ExecContext(ctx, `UPDATE frontier_entries SET state = 2, deadline = 0, consumer = '' WHERE id = ?`, id); err != nil {
			return failed, unknown, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO frontier_dead_reasons (id, reason) VALUES (?, ?)`, id, FailReason(fl.Reason)); err != nil {
			return failed, unknown, err
		}
		failed++
	}
	stats[StatFailed] += int64(failed)
	stats[StatFailUnknown] += int64(unknown)
	return failed, unknown, nil
}

// hasDeadReasons reports whether the file has frontier_dead_reasons (a
// file made before it has none until its first fail).
func hasDeadReasons(ctx context.Context, tx *ptx) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'frontier_dead_reasons'`).Scan(&n)
	return n > 0, err
}

// forgetReasonsTx deletes the reasons of the dead requests ids, acked.
func forgetReasonsTx(ctx context.Context, tx *ptx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if ok, err := hasDeadReasons(ctx, tx); err != nil || !ok {
		return err
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `DELETE FROM frontier_dead_reasons WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}
