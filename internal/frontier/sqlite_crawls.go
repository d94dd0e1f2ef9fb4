package frontier

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// purgeCrawlTx deletes the queued requests of crawl (a frontier_crawls id).
func (f *SQLite) purgeCrawlTx(ctx context.Context, tx *ptx, crawl int64, qs queues) (int, error) {
	ids, err := queryIDs(ctx, tx, `SELECT id FROM frontier_queues WHERE crawl = ? AND queued > 0`, crawl)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `DELETE FROM frontier_entries WHERE queue = ? AND state = 0`, id)
		if err != nil {
			return n, err
		}
		k, _ := res.RowsAffected()
		n += int(k)
		q, err := qs.get(ctx, tx, f, id)
		if err != nil {
			return n, err
		}
		q.queued, q.top, q.staleTop, q.dirty = 0, 0, false, true
	}
	return n, nil
}

// purgeExpiredTx purges the active crawls whose expires has passed at now
// and marks them expired (to be reported by Expire).
func (f *SQLite) purgeExpiredTx(ctx context.Context, tx *ptx, now time.Time, qs queues, stats map[string]int64) (int, error) {
	ids, err := queryIDs(ctx, tx, `SELECT id FROM frontier_crawls WHERE state = 0 AND expires != 0 AND expires <= ?`, now.Unix())
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		n, err := f.purgeCrawlTx(ctx, tx, id, qs)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE frontier_crawls SET state = 2, purged = ?, notified = 0 WHERE id = ?`, n, id); err != nil {
			return 0, err
		}
		stats[StatPurgedExpiry] += int64(n)
	}
	return len(ids), nil
}

// Expire implements Frontier.
func (f *SQLite) Expire(ctx context.Context, now time.Time) ([]Expired, error) {
	var out []Expired
	err := f.write(ctx, "expire", func(tx *ptx, stats map[string]int64) error {
		out = out[:0]
		qs := queues{}
		if _, err := f.purgeExpiredTx(ctx, tx, now, qs, stats); err != nil {
			return err
		}
		if err := qs.save(ctx, tx, f); err != nil {
			return err
		}
		// Reclaim the space of duplicate filters idle past DedupeTTL.
		if _, err := f.seen.ExpireTx(ctx, tx.Tx, now); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `UPDATE frontier_crawls SET notified = 1 WHERE state = 2 AND notified = 0
			RETURNING crawlid, appid, expires, purged`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e Expired
			if err := rows.Scan(&e.CrawlID, &e.AppID, &e.Expires, &e.Purged); err != nil {
				return err
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	sortExpired(out)
	return out, nil
}

// Stop implements Frontier.
func (f *SQLite) Stop(ctx context.Context, crawlID string, now time.Time) (int, error) {
	purged := 0
	err := f.write(ctx, "stop", func(tx *ptx, stats map[string]int64) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM frontier_crawls WHERE crawlid = ?`, crawlID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			_, err = tx.ExecContext(ctx, `INSERT INTO frontier_crawls (crawlid, state) VALUES (?, 1)`, crawlID)
			return err
		}
		if err != nil {
			return err
		}
		qs := queues{}
		if purged, err = f.purgeCrawlTx(ctx, tx, id, qs); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE frontier_crawls SET state = 1 WHERE id = ?`, id); err != nil {
			return err
		}
		stats[StatPurgedStop] += int64(purged)
		return qs.save(ctx, tx, f)
	})
	return purged, err
}

// Unstop implements Frontier.
func (f *SQLite) Unstop(ctx context.Context, crawlID string, now time.Time) error {
	return f.write(ctx, "unstop", func(tx *ptx, stats map[string]int64) error {
		_, err := tx.ExecContext(ctx, `UPDATE frontier_crawls SET state = 0 WHERE crawlid = ? AND state = 1`, crawlID)
		return err
	})
}

// Info implements Frontier.
func (f *SQLite) Info(ctx context.Context, filter InfoFilter) (Info, error) {
	var info Info
	err := f.read(ctx, "info", func(tx *ptx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, crawlid, appid, expires, state FROM frontier_crawls
			WHERE (?1 = '' OR appid = ?1) AND (?2 = '' OR crawlid = ?2) ORDER BY crawlid`, filter.AppID, filter.CrawlID)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var c CrawlInfo
			var id int64
			var state int
			if err := rows.Scan(&id, &c.CrawlID, &c.AppID, &c.Expires, &state); err != nil {
				rows.Close()
				return err
			}
			c.State = crawlStateName(state)
			ids = append(ids, id)
			info.Crawls = append(info.Crawls, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i, id := range ids {
			if err := f.crawlHostsTx(ctx, tx, id, &info.Crawls[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return info, err
}

func (f *SQLite) crawlHostsTx(ctx context.Context, tx *ptx, crawl int64, c *CrawlInfo) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, host, queued, in_flight, dead, top FROM frontier_queues
		WHERE crawl = ? AND (queued > 0 OR in_flight > 0 OR dead > 0) ORDER BY host`, crawl)
	if err != nil {
		return err
	}
	var qids []int64
	for rows.Next() {
		var h HostInfo
		var id int64
		if err := rows.Scan(&id, &h.Host, &h.Pending, &h.InFlight, &h.Dead, &h.HighPriority); err != nil {
			rows.Close()
			return err
		}
		qids = append(qids, id)
		c.Hosts = append(c.Hosts, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i, id := range qids {
		h := &c.Hosts[i]
		if h.Pending == 0 {
			h.HighPriority = 0
		} else if err := tx.QueryRowContext(ctx, `SELECT prio FROM frontier_entries WHERE queue = ? AND state = 0
			ORDER BY prio ASC, ord DESC LIMIT 1`, id).Scan(&h.LowPriority); err != nil {
			return err
		}
	}
	summarize(c)
	return nil
}

// Dump implements Frontier. It reads one snapshot while writers go on.
func (f *SQLite) Dump(ctx context.Context, fn func(DumpEntry) error) error {
	return f.read(ctx, "dump", func(tx *ptx) error {
		reasons, err := hasDeadReasons(ctx, tx)
		if err != nil {
			return err
		}
		reasonCol, reasonJoin := `''`, ``
		if reasons {
			reasonCol, reasonJoin = `coalesce(r.reason, '')`, ` LEFT JOIN frontier_dead_reasons r ON r.id = e.id`
		}
		rows, err := tx.QueryContext(ctx, `SELECT e.id, e.state, e.prio, e.lease, e.deadline, e.expiries, e.abandons, e.raw, q.host, c.crawlid, `+reasonCol+`
			FROM frontier_entries e JOIN frontier_queues q ON q.id = e.queue JOIN frontier_crawls c ON c.id = q.crawl`+reasonJoin+`
			ORDER BY e.id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, prio, nonce, deadline int64
			var state, expiries, abandons int
			var raw []byte
			var reason string
			var d DumpEntry
			if err := rows.Scan(&id, &state, &prio, &nonce, &deadline, &expiries, &abandons, &raw, &d.Host, &d.CrawlID, &reason); err != nil {
				return err
			}
			d.Priority, d.Expiries, d.Abandons = int(prio), expiries, abandons
			switch state {
			case stInFlight:
				d.State, d.Lease, d.Deadline = InFlight, formatLease(id, uint64(nonce)), time.UnixMilli(deadline)
			case stDead:
				d.State, d.Reason = Dead, reason
				if reason == "" {
					d.Reason = f.opts.deadReason(abandons)
				}
			default:
				d.State = Queued
			}
			if d.Raw, err = handout(raw, d.Lease, expiries); err != nil {
				return err
			}
			if err := fn(d); err != nil {
				return errCallback{err}
			}
		}
		return rows.Err()
	})
}

func crawlStateName(s int) string {
	switch s {
	case crStopped:
		return StateStopped
	case crExpired:
		return StateExpired
	}
	return StateActive
}

// queryIDs runs a query of one integer column and returns its values.
func queryIDs(ctx context.Context, tx *ptx, query string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
