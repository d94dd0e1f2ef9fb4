package frontier

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache holds a prepared statement for every SQL text the frontier
// runs, kept until Close. Preparing costs SQLite as much as running most of
// the small statements of pop and push, which run on every turn of the
// crawl loop. A statement is not prepared inside the transaction that
// first runs it (that would need a second connection, and the pool may
// have only one): it runs unprepared there, and is prepared once the
// transaction is over (preparePending).
type stmtCache struct {
	db      *sql.DB
	mu      sync.Mutex
	m       map[string]*sql.Stmt
	pending map[string]bool
	closed  bool
}

// get returns query's prepared statement, or nil when it is not prepared
// yet (it will be by the next preparePending).
func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st
	}
	if c.pending == nil {
		c.pending = map[string]bool{}
	}
	c.pending[query] = true
	return nil
}

// preparePending prepares the statements run unprepared so far. One that
// cannot be prepared is simply tried again after its next use. The lock is
// not held while preparing, which may wait for a connection that a
// transaction holds.
func (c *stmtCache) preparePending(ctx context.Context) {
	c.mu.Lock()
	var queries []string
	for query := range c.pending {
		queries = append(queries, query)
	}
	clear(c.pending)
	c.mu.Unlock()
	for _, query := range queries {
		st, err := c.db.PrepareContext(ctx, query)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, ok := c.m[query]; ok || c.closed {
			st.Close() // prepared meanwhile, or the frontier closed
		} else {
			if c.m == nil {
				c.m = map[string]*sql.Stmt{}
			}
			c.m[query] = st
		}
		c.mu.Unlock()
	}
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
	c.closed = true
}

// ptx is a transaction whose statements come from the frontier's cache:
// QueryContext, QueryRowContext and ExecContext take SQL text as
// *sql.Tx's do, and StmtContext binds a statement to the transaction once.
type ptx struct {
	*sql.Tx
	cache *stmtCache
	bound map[*sql.Stmt]*sql.Stmt
}

func newPtx(tx *sql.Tx, cache *stmtCache) *ptx {
	return &ptx{Tx: tx, cache: cache, bound: map[*sql.Stmt]*sql.Stmt{}}
}

// StmtContext returns st bound to the transaction, binding it on first use.
func (t *ptx) StmtContext(ctx context.Context, st *sql.Stmt) *sql.Stmt {
	if b, ok := t.bound[st]; ok {
		return b
	}
	b := t.Tx.StmtContext(ctx, st)
	t.bound[st] = b
	return b
}

func (t *ptx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.cache.get(query); st != nil {
		return t.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t *ptx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.cache.get(query); st != nil {
		return t.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}

func (t *ptx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.cache.get(query); st != nil {
		return t.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}
