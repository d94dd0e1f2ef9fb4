package frontier

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/dedupe"
)

// Push implements Frontier.
func (f *SQLite) Push(ctx context.Context, entries []Entry, now time.Time) ([]PushResult, error) {
	r, err := f.Apply(ctx, Batch{Entries: entries}, now)
	return r.Pushed, err
}

// Ack implements Frontier.
func (f *SQLite) Ack(ctx context.Context, leases []string, now time.Time) (AckResult, error) {
	r, err := f.Apply(ctx, Batch{Acks: leases}, now)
	return r.Acks, err
}

// Apply implements Frontier: one transaction for the whole batch.
func (f *SQLite) Apply(ctx context.Context, b Batch, now time.Time) (BatchResult, error) {
	var res BatchResult
	err := f.write(ctx, "push", func(tx *ptx, stats map[string]int64) error {
		cs := crawls{}
		qs := queues{}
		var err error
		if res.Pushed, err = f.pushTx(ctx, tx, b.Entries, now, cs, qs, stats); err != nil {
			return err
		}
		if res.Acks, err = f.ackTx(ctx, tx, b.Acks, qs, stats); err != nil {
			return err
		}
		if res.Failed, res.FailUnknown, err = f.failTx(ctx, tx, b.Fails, qs, stats); err != nil {
			return err
		}
		if res.Released, res.ReleaseUnknown, err = f.releaseTx(ctx, tx, b.Releases, qs, stats); err != nil {
			return err
		}
		if err := cs.save(ctx, tx); err != nil {
			return err
		}
		return qs.save(ctx, tx, f)
	})
	if err != nil {
		return BatchResult{}, err
	}
	return res, nil
}

// crawlRow is a frontier_crawls row being changed within a transaction.
type crawlRow struct {
	id      int64 // 0 until inserted
	name    string
	appid   string
	expires int64
	state   int
	dirty   bool
}

// crawls caches the crawl rows a transaction reads, by crawlid.
type crawls map[string]*crawlRow

// get returns crawlid's row, or a new unsaved active one.
func (cs crawls) get(ctx context.Context, tx *ptx, f *SQLite, crawlid string) (*crawlRow, error) {
	if c, ok := cs[crawlid]; ok {
		return c, nil
	}
	c := &crawlRow{name: crawlid}
	err := tx.StmtContext(ctx, f.st.crawlByName).QueryRowContext(ctx, crawlid).Scan(&c.id, &c.appid, &c.expires, &c.state)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	cs[crawlid] = c
	return c, nil
}

// ensure inserts c if it is new.
func (c *crawlRow) ensure(ctx context.Context, tx *ptx) error {
	if c.id != 0 {
		return nil
	}
	return tx.QueryRowContext(ctx, `INSERT INTO frontier_crawls (crawlid, appid, expires, state) VALUES (?, ?, ?, ?) RETURNING id`,
		c.name, c.appid, c.expires, c.state).Scan(&c.id)
}

func (cs crawls) save(ctx context.Context, tx *ptx) error {
	for _, c := range cs {
		if !c.dirty || c.id == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE frontier_crawls SET appid = ?, expires = ?, state = ? WHERE id = ?`,
			c.appid, c.expires, c.state, c.id); err != nil {
			return err
		}
	}
	return nil
}

func (f *SQLite) pushTx(ctx context.Context, tx *ptx, entries []Entry, now time.Time, cs crawls, qs queues, stats map[string]int64) ([]PushResult, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	results := make([]PushResult, len(entries))
	refuse := func(i int, reason string) {
		results[i].Reason = reason
		stats[StatRefused+reason]++
	}
	// Stopped crawls and expired requests first: they are not marked seen.
	nowS := now.Unix()
	byNS := map[string][]int{}
	var nsOrder []string
	for i := range entries {
		e := &entries[i]
		c, err := cs.get(ctx, tx, f, e.CrawlID)
		if err != nil {
			return nil, err
		}
		switch {
		case c.state == crStopped:
			refuse(i, ReasonStopped)
		case e.Expires != 0 && e.Expires <= nowS:
			refuse(i, ReasonExpired)
		case e.DontFilter:
			results[i].Queued = true
		default:
			ns := SeenNamespace(e.CrawlID, e.Round)
			if _, ok := byNS[ns]; !ok {
				nsOrder = append(nsOrder, ns)
			}
			byNS[ns] = append(byNS[ns], i)
		}
	}
	// The duplicate filter, one namespace per crawl.
	for _, ns := range nsOrder {
		idx, err := f.dropFresh(ctx, tx, entries, byNS[ns], now, refuse)
		if err != nil {
			return nil, err
		}
		if len(idx) == 0 {
			continue
		}
		keys := make([]dedupe.Key, len(idx))
		for j, i := range idx {
			keys[j] = entries[i].Key
		}
		isNew, err := f.seen.SeenTx(ctx, tx.Tx, ns, keys, now)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			if isNew[j] {
				results[i].Queued = true
			} else {
				refuse(i, ReasonDuplicate)
			}
		}
	}
	// Queue what passed.
	seq, err := f.getMeta(ctx, tx, metaSeq)
	if err != nil {
		return nil, err
	}
	var turn int64 = -1
	type qkey struct {
		crawl int64
		host  string
	}
	byHost := map[qkey]*queueRow{}
	// First the crawls and queues, in input order: a new queue's turn in
	// the round robin is the order its host first appears.
	for i := range entries {
		if !results[i].Queued {
			continue
		}
		e := &entries[i]
		c := cs[e.CrawlID]
		if c.state == crExpired {
			// A request that may still be queued revives an expired crawl,
			// whose expiry starts over from the requests pushed since.
			c.state, c.expires, c.dirty = crActive, 0, true
			if _, err := tx.ExecContext(ctx, `UPDATE frontier_crawls SET purged = 0, notified = 0 WHERE id = ?`, c.id); err != nil {
				return nil, err
			}
		}
		if e.Expires > c.expires {
			c.expires, c.dirty = e.Expires, true
		}
		if c.appid == "" && e.AppID != "" {
			c.appid, c.dirty = e.AppID, true
		}
		if err := c.ensure(ctx, tx); err != nil {
			return nil, err
		}
		k := qkey{c.id, e.Host}
		q := byHost[k]
		if q == nil {
			if turn < 0 {
				if turn, err = f.getMeta(ctx, tx, metaTurn); err != nil {
					return nil, err
				}
			}
			if q, err = f.queueFor(ctx, tx, qs, c.id, e.Host, turn); err != nil {
				return nil, err
			}
			byHost[k] = q
		}
	}
	// Then the rows.
	ins := tx.StmtContext(ctx, f.st.insertEntry)
	for _, i := range queueOrder(entries, results) {
		e := &entries[i]
		q := byHost[qkey{cs[e.CrawlID].id, e.Host}]
		seq++
		prio := int64(f.opts.queuePriority(e))
		ord := seq
		if f.opts.Order == LIFO {
			ord = -seq
		}
		if _, err := ins.ExecContext(ctx, seq, q.id, prio, ord, e.Raw); err != nil {
			return nil, err
		}
		q.requeued(prio)
		stats[StatPushed]++
	}
	return results, f.setMeta(ctx, tx, metaSeq, seq)
}

// queueOrder returns the indexes of the entries to queue, grouped by
// queue (crawl and host), in input order within each: they get their ids
// in that order, so a batch's rows of one queue are neighbours in the pop
// index as they are in their queue, and the batch writes each page of the
// index once. The order within a queue, which pop serves, is the input's.
func queueOrder(entries []Entry, results []PushResult) []int {
	idx := make([]int, 0, len(entries))
	for i := range entries {
		if results[i].Queued {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ea, eb := &entries[a], &entries[b]
		if c := strings.Compare(ea.CrawlID, eb.CrawlID); c != 0 {
			return c
		}
		return strings.Compare(ea.Host, eb.Host)
	})
	return idx
}

// queueFor returns the (crawl, host) queue, creating it with round-robin
// turn turn (the back of the line) if it does not exist.
func (f *SQLite) queueFor(ctx context.Context, tx *ptx, qs queues, crawl int64, host string, turn int64) (*queueRow, error) {
	q := &queueRow{crawl: crawl, host: host}
	err := tx.StmtContext(ctx, f.st.queueByHost).QueryRowContext(ctx, crawl, host).Scan(&q.id, &q.queued, &q.inFlight, &q.dead, &q.top, &q.turn)
	if errors.Is(err, sql.ErrNoRows) {
		q.turn = turn
		err = tx.StmtContext(ctx, f.st.insertQueue).QueryRowContext(ctx, crawl, host, turn).Scan(&q.id)
	}
	if err != nil {
		return nil, err
	}
	if cached, ok := qs[q.id]; ok {
		return cached, nil
	}
	qs[q.id] = q
	return q, nil
}

func (f *SQLite) ackTx(ctx context.Context, tx *ptx, leases []string, qs queues, stats map[string]int64) (AckResult, error) {
	var r AckResult
	if len(leases) == 0 {
		return r, nil
	}
	// Counter changes for queues this transaction has not loaded, applied
	// as deltas (no need to read the rows).
	type delta struct {
		queued, inFlight, dead int64
		top                    bool
	}
	deltas := map[int64]*delta{}
	var dead []int64 // acked dead requests, whose reason goes with them
	del := tx.StmtContext(ctx, f.st.ackEntry)
	for _, l := range leases {
		id, nonce, ok := parseLease(l)
		if !ok {
			r.Unknown++
			continue
		}
		var queue, prio int64
		var state int
		err := del.QueryRowContext(ctx, id, int64(nonce)).Scan(&queue, &state, &prio)
		if errors.Is(err, sql.ErrNoRows) {
			r.Unknown++
			continue
		}
		if err != nil {
			return r, err
		}
		r.Acked++
		if state == stDead {
			dead = append(dead, id)
		}
		if q, ok := qs[queue]; ok {
			q.dirty = true
			switch state {
			case stInFlight:
				q.inFlight--
			case stDead:
				q.dead--
			case stQueued: // a late ack: the lease expired, the request was not handed out again
				q.queued--
				q.staleTop = true
			}
			continue
		}
		d := deltas[queue]
		if d == nil {
			d = &delta{}
			deltas[queue] = d
		}
		switch state {
		case stInFlight:
			d.inFlight--
		case stDead:
			d.dead--
		case stQueued:
			d.queued--
			d.top = true
		}
	}
	if len(deltas) > 0 {
		add := tx.StmtContext(ctx, f.st.addQueueCounts)
		for id, d := range deltas {
			if _, err := add.ExecContext(ctx, d.queued, d.inFlight, d.dead, d.top, id, id); err != nil {
				return r, err
			}
		}
	}
	if err := forgetReasonsTx(ctx, tx, dead); err != nil {
		return r, err
	}
	stats[StatAcked] += int64(r.Acked)
	stats[StatAckUnknown] += int64(r.Unknown)
	return r, nil
}

// releaseTx returns the in-flight requests of leases to their queues.
func (f *SQLite) releaseTx(ctx context.Context, tx *ptx, leases []string, qs queues, stats map[string]int64) (released, unknown int, err error) {
	if len(leases) == 0 {
		return 0, 0, nil
	}
	rel := tx.StmtContext(ctx, f.st.releaseEntry)
	crawlState := map[int64]int{}
	for _, l := range leases {
		id, nonce, ok := parseLease(l)
		if !ok {
			unknown++
			continue
		}
		var queue, prio int64
		err := rel.QueryRowContext(ctx, id, int64(nonce)).Scan(&queue, &prio)
		if errors.Is(err, sql.ErrNoRows) {
			unknown++
			continue
		}
		if err != nil {
			return released, unknown, err
		}
		q, err := qs.get(ctx, tx, f, queue)
		if err != nil {
			return released, unknown, err
		}
		q.inFlight--
		q.dirty = true
		released++
		state, ok := crawlState[q.crawl]
		if !ok {
			if err := tx.QueryRowContext(ctx, `SELECT state FROM frontier_crawls WHERE id = ?`, q.crawl).Scan(&state); err != nil {
				return released, unknown, err
			}
			crawlState[q.crawl] = state
		}
		if state != crActive { // its crawl was stopped or expired meanwhile
			if _, err := tx.ExecContext(ctx, `DELETE FROM frontier_entries WHERE id = ?`, id); err != nil {
				return released, unknown, err
			}
			stats[StatDropped]++
			continue
		}
		q.requeued(prio)
	}
	stats[StatReleased] += int64(released)
	return released, unknown, nil
}

// dropFresh refuses, as fresh, the entries of idx seen in one of the
// rounds their Entry.Fresh lists, and returns the others. An entry already
// seen in its own round is left to the duplicate filter (a duplicate, not
// fresh).
func (f *SQLite) dropFresh(ctx context.Context, tx *ptx, entries []Entry, idx []int, now time.Time, refuse func(int, string)) ([]int, error) {
	fresh := map[int]bool{}
	for _, i := range idx {
		e := &entries[i]
		if len(e.Fresh) == 0 {
			continue
		}
		own, err := f.seen.HasTx(ctx, tx.Tx, SeenNamespace(e.CrawlID, e.Round), []dedupe.Key{e.Key}, now)
		if err != nil {
			return nil, err
		}
		if own[0] {
			continue
		}
		for _, ns := range strings.Split(strings.TrimSuffix(freshNamespaces(e), "\n"), "\n") {
			if ns == "" {
				continue
			}
			has, err := f.seen.HasTx(ctx, tx.Tx, ns, []dedupe.Key{e.Key}, now)
			if err != nil {
				return nil, err
			}
			if has[0] {
				fresh[i] = true
				break
			}
		}
	}
	if len(fresh) == 0 {
		return idx, nil
	}
	kept := idx[:0:0]
	for _, i := range idx {
		if fresh[i] {
			refuse(i, ReasonFresh)
		} else {
			kept = append(kept, i)
		}
	}
	return kept, nil
}
