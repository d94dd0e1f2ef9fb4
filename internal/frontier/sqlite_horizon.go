package frontier

import (
	"context"
	"strconv"
)

// recentHeldTx counts the leases of recent (see handouts) that consumer
// still holds: in flight, its, and not handed out again since.
func (f *SQLite) recentHeldTx(ctx context.Context, tx *ptx, consumer string, recent []string) (int, error) {
	if len(recent) == 0 {
		return 0, nil
	}
	// A JSON array of [id, nonce] pairs, read by json_each: one statement
	// whatever their number.
	b := make([]byte, 0, len(recent)*32)
	b = append(b, '[')
	for _, l := range recent {
		id, nonce, ok := parseLease(l)
		if !ok {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(nonce), 10)
		b = append(b, ']')
	}
	b = append(b, ']')
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM json_each(?) j JOIN frontier_entries e
		ON e.id = json_extract(j.value, '$[0]') AND e.lease = json_extract(j.value, '$[1]')
		WHERE e.state = 1 AND e.consumer = ?`, string(b), consumer).Scan(&n)
	return n, err
}
