package frontier

import (
	"context"
	"time"
)

// heldRecentTx is heldTx with PopOptions.Horizon: it also counts, in the
// same pass over the consumer's leases, those handed out after since
// (recent: see handouts), and forgets the recent leases the consumer no
// longer holds.
func (f *SQLite) heldRecentTx(ctx context.Context, tx *ptx, consumer string, perQueue bool, since time.Time) (held, recent int, byQueue map[int64]int, err error) {
	mine := f.handed.recent(consumer, since)
	if len(mine) == 0 && !perQueue {
		held, _, err = f.heldTx(ctx, tx, consumer, false)
		return held, 0, nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, lease, queue FROM frontier_entries WHERE state = 1 AND consumer = ? AND consumer != ''`, consumer)
	if err != nil {
		return 0, 0, nil, err
	}
	defer rows.Close()
	if perQueue {
		byQueue = map[int64]int{}
	}
	// The leases handed out within the horizon, by id and nonce: each
	// held row is looked up without formatting its lease.
	type key struct {
		id    int64
		nonce uint64
	}
	keys := make([]key, len(mine)) // mine's, in order (a lease that does not parse matches no row)
	recentSet := make(map[key]bool, len(mine))
	for i, l := range mine {
		id, nonce, _ := parseLease(l)
		keys[i] = key{id, nonce}
		recentSet[keys[i]] = false
	}
	for rows.Next() {
		var id, nonce, q int64
		if err := rows.Scan(&id, &nonce, &q); err != nil {
			return 0, 0, nil, err
		}
		held++
		if perQueue {
			byQueue[q]++
		}
		if len(recentSet) > 0 {
			k := key{id, uint64(nonce)}
			if _, ok := recentSet[k]; ok {
				recentSet[k] = true
			}
		}
	}
	if err := rows.Err(); err != nil {
		return 0, 0, nil, err
	}
	var gone []string
	for i, l := range mine {
		if recentSet[keys[i]] {
			recent++
		} else {
			gone = append(gone, l)
		}
	}
	f.handed.drop(consumer, gone)
	return held, recent, byQueue, nil
}
