package frontier

import (
	"context"
	"maps"
	"strconv"
)

// AddCrawlCounts implements Frontier.
func (f *SQLite) AddCrawlCounts(ctx context.Context, crawlID string, add map[string]int64, set map[string]string) (map[string]string, error) {
	out := map[string]string{}
	err := f.write(ctx, "add crawl counts", func(tx *ptx, _ map[string]int64) error {
		if _, err := tx.ExecContext(ctx, crawlMetaTable); err != nil {
			return err
		}
		for k, n := range add {
			if _, err := tx.ExecContext(ctx, `INSERT INTO frontier_crawl_meta (crawlid, key, value) VALUES (?, ?, ?)
				ON CONFLICT (crawlid, key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT)`,
				crawlID, k, strconv.FormatInt(n, 10), n); err != nil {
				return err
			}
		}
		for k, v := range set {
			if _, err := tx.ExecContext(ctx, `INSERT INTO frontier_crawl_meta (crawlid, key, value) VALUES (?, ?, ?)
				ON CONFLICT (crawlid, key) DO UPDATE SET value = excluded.value`, crawlID, k, v); err != nil {
				return err
			}
		}
		clear(out)
		return crawlMetaTx(ctx, tx, crawlID, out)
	})
	if err != nil {
		return nil, err
	}
	return maps.Clone(out), nil
}
