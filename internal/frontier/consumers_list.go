package frontier

import (
	"context"
	"slices"
	"strings"
	"time"
)

// ConsumerInfo is a registered consumer as Consumers reports it.
type ConsumerInfo struct {
	Consumer
	// Beat is its last heartbeat (a Join, Beat or Pop of it).
	Beat time.Time
	// Held is how many requests it holds in flight.
	Held int
}

// MetaPaused is the crawl metadata key (see SetCrawlMeta) that pauses a
// crawl: while its value is "1", cqueue pop --follow hands out nothing
// (pop serves every crawl of its frontier, so none of them) and waits, its
// heartbeats going on; any other value resumes it. Nothing in the frontier
// reads it: it is a convention between cqueue serve, which sets it, and
// cqueue pop, which reads it once a second.
const MetaPaused = "paused"

// Consumers implements Frontier.
func (f *SQLite) Consumers(ctx context.Context) ([]ConsumerInfo, error) {
	var out []ConsumerInfo
	err := f.read(ctx, "consumers", func(tx *ptx) error {
		held := map[string]int{}
		rows, err := tx.QueryContext(ctx, `SELECT consumer, count(*) FROM frontier_entries WHERE state = 1 AND consumer != '' GROUP BY consumer`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				rows.Close()
				return err
			}
			held[id] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `SELECT id, host, pid, boot, beat FROM frontier_consumers ORDER BY id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c ConsumerInfo
			var beat int64
			if err := rows.Scan(&c.ID, &c.Host, &c.PID, &c.Boot, &beat); err != nil {
				return err
			}
			c.Beat, c.Held = time.UnixMilli(beat), held[c.ID]
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, err
}

func sortConsumers(cs []ConsumerInfo) {
	slices.SortFunc(cs, func(a, b ConsumerInfo) int { return strings.Compare(a.ID, b.ID) })
}
