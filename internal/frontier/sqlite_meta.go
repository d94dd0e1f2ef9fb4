package frontier

import (
	"context"
	"maps"
)

// crawlMetaTable is created by SetCrawlMeta in a file made before the table
// was part of the schema.
const crawlMetaTable = `CREATE TABLE IF NOT EXISTS frontier_crawl_meta (
	crawlid TEXT NOT NULL,
	key     TEXT NOT NULL,
	value   TEXT NOT NULL,
	PRIMARY KEY (crawlid, key)
) WITHOUT ROWID`

// CrawlMeta implements Frontier.
func (f *SQLite) CrawlMeta(ctx context.Context, crawlID string) (map[string]string, error) {
	out := map[string]string{}
	err := f.read(ctx, "crawl meta", func(tx *ptx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'frontier_crawl_meta'`).Scan(&n); err != nil || n == 0 {
			return err
		}
		return crawlMetaTx(ctx, tx, crawlID, out)
	})
	return out, err
}

// SetCrawlMeta implements Frontier.
func (f *SQLite) SetCrawlMeta(ctx context.Context, crawlID string, meta map[string]string, replace bool) (map[string]string, error) {
	out := map[string]string{}
	err := f.write(ctx, "set crawl meta", func(tx *ptx, _ map[string]int64) error {
		if _, err := tx.ExecContext(ctx, crawlMetaTable); err != nil {
			return err
		}
		query := `INSERT INTO frontier_crawl_meta (crawlid, key, value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`
		if replace {
			query = `INSERT INTO frontier_crawl_meta (crawlid, key, value) VALUES (?, ?, ?)
				ON CONFLICT (crawlid, key) DO UPDATE SET value = excluded.value`
		}
		for k, v := range meta {
			if _, err := tx.ExecContext(ctx, query, crawlID, k, v); err != nil {
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

func crawlMetaTx(ctx context.Context, tx *ptx, crawlID string, out map[string]string) error {
	rows, err := tx.QueryContext(ctx, `SELECT key, value FROM frontier_crawl_meta WHERE crawlid = ?`, crawlID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		out[k] = v
	}
	return rows.Err()
}
