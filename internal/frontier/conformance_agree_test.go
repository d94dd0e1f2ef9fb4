package frontier

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// The conformance suite (see conformance_test.go): the backends held against each other.

// TestBackendsAgree drives every backend (SQLite, Redis, the Redis
// frontier on a Redis Cluster) through the same random sequence of
// pushes, pops (one-off, or by consumers with windows), acks, fails (with
// pushes in the same batch, and stale leases), releases, lease expiries,
// stops, expiries, and consumers joining, beating, leaving and going
// silent past the consumer timeout, and checks that they answer exactly
// alike at every step: SQLite and Redis are independent implementations of
// one deterministic algorithm (priority, FIFO, the rotation among queues,
// ids and turns, leases, abandons), so any difference is a bug in one.
func TestBackendsAgree(t *testing.T) {
	for seed := range uint64(agreeSeeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			o := agreeOptions(seed)
			bs := backends(t)
			var fs []Frontier
			for _, name := range backendNames {
				if name == "sharded" {
					continue // its own rotation of hosts: TestShardedAgrees
				}
				fs = append(fs, bs[name](t, o))
			}
			agree(t, rand.New(rand.NewPCG(seed, 42)), fs, false)
		})
	}
}

// TestShardedAgrees runs TestBackendsAgree's histories on SQLite and on a
// frontier split over three slots of a cluster (shards=3), whose hosts
// take turns within their shard: every pop takes everything queued (no
// window), so the two hand out the same requests, compared as sets; and
// each crawl has one expiry (a shard judges the expiry of the requests it
// holds). Everything else must agree at every step: pushes, acks, fails,
// releases, reclaims, consumers' deaths, stops, expiries, counts, info,
// stats and every request's state.
func TestShardedAgrees(t *testing.T) {
	for seed := range uint64(agreeSeeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			o := agreeOptions(seed)
			bs := backends(t)
			agree(t, rand.New(rand.NewPCG(seed, 42)), []Frontier{bs["sqlite"](t, o), bs["sharded"](t, o)}, true)
		})
	}
}

// agreeOptions are the frontier's options for seed's history: FIFO or
// LIFO with depth priority, two or three abandons.
func agreeOptions(seed uint64) Options {
	o := Options{MaxLeaseExpiries: 2, MaxAbandons: 2 + int(seed/2%2), ConsumerTimeout: agreeConsumerTimeout}
	if seed%2 == 1 {
		o.Order, o.DepthPriority = LIFO, 1
	}
	return o
}

// agreeConsumerTimeout is the consumer timeout of TestBackendsAgree: a
// few steps of silence (each moves the clock 0-19s) kill a consumer.
const agreeConsumerTimeout = 45 * time.Second

func agree(t *testing.T, rnd *rand.Rand, fs []Frontier, sharded bool) {
	now := t0
	names := backendNames
	if sharded {
		names = []string{"sqlite", "sharded"}
	}
	// Sharded: one expiry per crawl, drawn once.
	crawlExpiry := map[string]int64{}
	inflight := make([]map[string]string, len(fs)) // url → lease, per backend
	for i := range inflight {
		inflight[i] = map[string]string{}
	}
	retired := make([][]string, len(fs)) // leases acked, failed, released or replaced, per backend
	var urlsSeen []string
	// entries makes n requests to push, a fifth of them duplicates.
	entries := func(n int) []Entry {
		var es []Entry
		for range n {
			var u string
			if len(urlsSeen) > 0 && rnd.IntN(5) == 0 {
				u = urlsSeen[rnd.IntN(len(urlsSeen))] // a duplicate
			} else {
				u = fmt.Sprintf("http://h%d.test/%d", rnd.IntN(6), rnd.IntN(1_000_000))
				urlsSeen = append(urlsSeen, u)
			}
			kv := []any{"crawl", fmt.Sprint("c", rnd.IntN(3)), "prio", rnd.IntN(4) - 1, "depth", rnd.IntN(3)}
			if rnd.IntN(10) == 0 {
				kv = append(kv, "dont_filter", true)
			}
			if sharded {
				crawl := kv[1].(string)
				exp, ok := crawlExpiry[crawl]
				if !ok {
					if rnd.IntN(2) == 0 {
						exp = now.Add(time.Duration(60+rnd.IntN(600)) * time.Second).Unix()
					}
					crawlExpiry[crawl] = exp
				}
				if exp != 0 {
					kv = append(kv, "expires", exp)
				}
			} else if rnd.IntN(8) == 0 {
				kv = append(kv, "expires", now.Add(time.Duration(rnd.IntN(120)-20)*time.Second).Unix())
			}
			es = append(es, req(t, u, kv...))
		}
		return es
	}
	// The consumers joined, the same index in every backend (their ids
	// differ); on another machine, so only heartbeats tell they live.
	cons := make([][]Consumer, len(fs))
	for step := range agreeSteps {
		now = now.Add(time.Duration(rnd.IntN(20)) * time.Second)
		var what string
		got := make([]string, len(fs))
		switch op := rnd.IntN(13); {
		case op < 4:
			n := 1 + rnd.IntN(8)
			es := entries(n)
			what = fmt.Sprintf("push %d", n)
			for i, f := range fs {
				res, err := f.Push(ctx, es, now)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = fmt.Sprint(res)
			}
		case op < 7:
			n := 1 + rnd.IntN(7)
			lease := time.Duration(10+rnd.IntN(60)) * time.Second
			k, window, hostWindow := -1, 0, 0
			if len(cons[0]) > 0 && rnd.IntN(3) > 0 {
				k, window, hostWindow = rnd.IntN(len(cons[0])), rnd.IntN(6), rnd.IntN(3)
			}
			if sharded {
				n, window, hostWindow = 10_000, 0, 0
			}
			what = fmt.Sprintf("pop %d as consumer %d, window %d, host window %d", n, k, window, hostWindow)
			for i, f := range fs {
				o := PopOptions{Max: n, Lease: lease}
				if k >= 0 {
					o.Consumer, o.Window, o.HostWindow = cons[i][k], window, hostWindow
				}
				res, err := f.Pop(ctx, o, now)
				ls := res.Leased
				if err != nil {
					t.Fatal(err)
				}
				if sharded {
					// The same order in both, for the leases the test
					// keeps (by URL: one URL may be in two crawls).
					slices.SortStableFunc(ls, func(a, b Leased) int {
						return strings.Compare(urls(t, []Leased{a})[0]+" "+a.CrawlID+" "+fmt.Sprint(a.Priority),
							urls(t, []Leased{b})[0]+" "+b.CrawlID+" "+fmt.Sprint(b.Priority))
					})
				}
				us := urls(t, ls)
				for j, u := range us {
					if old, ok := inflight[i][u]; ok {
						retired[i] = append(retired[i], old)
					}
					inflight[i][u] = ls[j].Lease
				}
				got[i] = fmt.Sprint(us, priorities(ls), " held ", res.Held, " done ", res.Done)
			}
		case op < 9 && rnd.IntN(4) == 0:
			// Release a random subset of what is in flight.
			var pick []string
			for u := range inflight[0] {
				if rnd.IntN(3) == 0 {
					pick = append(pick, u)
				}
			}
			slices.Sort(pick)
			what = fmt.Sprintf("release %d", len(pick))
			for i, f := range fs {
				var ls []string
				for _, u := range pick {
					ls = append(ls, inflight[i][u])
					delete(inflight[i], u)
				}
				retired[i] = append(retired[i], ls...)
				r, err := f.Apply(ctx, Batch{Releases: ls}, now)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = fmt.Sprint(r)
			}
		case op < 9:
			// Ack a random subset of what is in flight, the same URLs in
			// both, failing one in four instead; now and then fail a
			// retired lease too (it must match nothing), or push
			// follow-ups in the same batch.
			var pick []string
			for u := range inflight[0] {
				if rnd.IntN(2) == 0 {
					pick = append(pick, u)
				}
			}
			slices.Sort(pick)
			fail := make([]bool, len(pick))
			nfail := 0
			for j := range fail {
				if fail[j] = rnd.IntN(4) == 0; fail[j] {
					nfail++
				}
			}
			reason := fmt.Sprint("Reason ", rnd.IntN(3))
			stale := -1
			if len(retired[0]) > 0 && rnd.IntN(3) == 0 {
				stale = rnd.IntN(len(retired[0]))
			}
			var es []Entry
			if rnd.IntN(3) == 0 {
				es = entries(1 + rnd.IntN(3))
			}
			what = fmt.Sprintf("ack %d, fail %d (%s), stale %d, push %d", len(pick)-nfail, nfail, reason, stale, len(es))
			for i, f := range fs {
				b := Batch{Entries: es}
				if stale >= 0 {
					b.Fails = append(b.Fails, Fail{Lease: retired[i][stale], Reason: "stale"})
				}
				for j, u := range pick {
					l := inflight[i][u]
					if fail[j] {
						b.Fails = append(b.Fails, Fail{Lease: l, Reason: reason})
					} else {
						b.Acks = append(b.Acks, l)
					}
					retired[i] = append(retired[i], l)
					delete(inflight[i], u)
				}
				r, err := f.Apply(ctx, b, now)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = fmt.Sprint(r)
			}
		case (op == 10 || op == 11) && (len(cons[0]) == 0 || op == 10 && len(cons[0]) < 4):
			what = fmt.Sprintf("join %d", len(cons[0]))
			for i, f := range fs {
				c, err := f.Join(ctx, Consumer{Host: "elsewhere.test", PID: 100 + len(cons[i]), Boot: "b"}, now)
				if err != nil {
					t.Fatal(err)
				}
				cons[i] = append(cons[i], c)
			}
		case op == 10 || op == 11:
			k := rnd.IntN(len(cons[0]))
			lease := time.Duration(10+rnd.IntN(60)) * time.Second
			what = fmt.Sprintf("beat %d, lease %v", k, lease)
			for i, f := range fs {
				held, err := f.Beat(ctx, cons[i][k], lease, now)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = fmt.Sprint(held)
			}
		case op == 12 && len(cons[0]) > 0 && rnd.IntN(2) == 0:
			k := rnd.IntN(len(cons[0]))
			what = fmt.Sprintf("leave %d", k)
			for i, f := range fs {
				if err := f.Leave(ctx, cons[i][k], now); err != nil {
					t.Fatal(err)
				}
				cons[i] = slices.Delete(cons[i], k, k+1)
			}
		case op == 12:
			// Every consumer falls silent past the timeout; the next pop
			// or reclaim finds them dead (or they come back by beating).
			now = now.Add(agreeConsumerTimeout + time.Duration(rnd.IntN(3_000_000))*time.Microsecond)
			what = "time jump past the consumer timeout"
		default:
			switch rnd.IntN(4) {
			case 0:
				c := fmt.Sprint("c", rnd.IntN(3))
				what = "stop " + c
				for i, f := range fs {
					n, err := f.Stop(ctx, c, now)
					if err != nil {
						t.Fatal(err)
					}
					got[i] = fmt.Sprint(n)
				}
			case 3:
				c := fmt.Sprint("c", rnd.IntN(3))
				what = "unstop " + c
				for _, f := range fs {
					if err := f.Unstop(ctx, c, now); err != nil {
						t.Fatal(err)
					}
				}
			case 1:
				what = "expire"
				for i, f := range fs {
					ex, err := f.Expire(ctx, now)
					if err != nil {
						t.Fatal(err)
					}
					got[i] = fmt.Sprint(ex)
				}
			default:
				now = now.Add(time.Minute)
				what = "reclaim"
				for i, f := range fs {
					r, err := f.Reclaim(ctx, now)
					if err != nil {
						t.Fatal(err)
					}
					got[i] = fmt.Sprint(r)
				}
			}
		}
		for i, f := range fs {
			switch f := f.(type) {
			case *SQLite:
				sqliteInvariants(t, f)
			case *Redis:
				for _, s := range f.shards {
					redisInvariants(t, s)
				}
			}
			if t.Failed() {
				t.Fatalf("step %d (%s): %s bookkeeping is off", step, what, names[i])
			}
			if got[i] != got[0] {
				t.Fatalf("step %d (%s): %s %s, %s %s", step, what, names[0], got[0], names[i], got[i])
			}
		}
		state := make([]string, len(fs))
		for i, f := range fs {
			c, err := f.Counts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			info, err := f.Info(ctx, InfoFilter{})
			if err != nil {
				t.Fatal(err)
			}
			st, _ := f.Stats(ctx)
			state[i] = fmt.Sprint(c, jsonOf(info), st, "\nheld ", heldBy(t, f, cons[i]), "\n", dumpState(t, f))
		}
		for i := range state {
			if state[i] != state[0] {
				t.Fatalf("step %d (%s): state differs:\n%s %s\n%s %s", step, what, names[0], state[0], names[i], state[i])
			}
		}
	}
}

// dumpState is every request f holds, as Dump reports it but for the
// lease nonces (random), one line each, sorted.
func dumpState(t *testing.T, f Frontier) string {
	t.Helper()
	var lines []string
	err := f.Dump(ctx, func(d DumpEntry) error {
		var r record.Request
		if err := record.Decode(d.Raw, &r); err != nil {
			return err
		}
		var deadline int64
		if !d.Deadline.IsZero() {
			deadline = d.Deadline.Sub(t0).Milliseconds()
		}
		lines = append(lines, fmt.Sprintf("%s %s %s/%s prio %d retries %d expiries %d abandons %d reason %q deadline %d leased %v",
			r.URL, d.State, d.CrawlID, d.Host, d.Priority, r.Retries, d.Expiries, d.Abandons, d.Reason, deadline, d.Lease != ""))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// heldBy is how many requests each consumer holds in flight.
func heldBy(t *testing.T, f Frontier, cons []Consumer) []int64 {
	t.Helper()
	out := make([]int64, len(cons))
	for k, c := range cons {
		var err error
		switch f := f.(type) {
		case *SQLite:
			err = f.db.QueryRow(`SELECT count(*) FROM frontier_entries WHERE state = 1 AND consumer = ?`, c.ID).Scan(&out[k])
		case *Redis:
			for _, s := range f.shards {
				n, e := s.client.SCard(ctx, s.prefix+"f:held:"+c.ID).Result()
				out[k], err = out[k]+n, errors.Join(err, e)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// redisInvariants checks that the Redis frontier's bookkeeping of
// consumers matches its entries: F owner and the F held:CID sets mirror
// each other and name only requests in flight, F consumers and F beats
// name the same consumers and F lastpop only those, F abandons only
// requests that exist, F reason only dead ones, and F counts the sizes of
// F inflight and F dead.
func redisInvariants(t *testing.T, r *redisShard) {
	t.Helper()
	F := r.prefix + "f:"
	owner, err := r.client.HGetAll(ctx, F+"owner").Result()
	if err != nil {
		t.Fatal(err)
	}
	for id, cid := range owner {
		if ok, _ := r.client.SIsMember(ctx, F+"held:"+cid, id).Result(); !ok {
			t.Errorf("entry %s: owner %s, not in its held set", id, cid)
		}
		if err := r.client.ZScore(ctx, F+"inflight", id).Err(); err != nil {
			t.Errorf("entry %s: owner %s, not in flight (%v)", id, cid, err)
		}
	}
	node, err := r.conn.Node(ctx, F) // KEYS names no key: ask the node holding the frontier
	if err != nil {
		t.Fatal(err)
	}
	held, err := node.Keys(ctx, F+"held:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range held {
		cid := strings.TrimPrefix(k, F+"held:")
		ids, _ := r.client.SMembers(ctx, k).Result()
		for _, id := range ids {
			if owner[id] != cid {
				t.Errorf("entry %s: in the held set of %s, owner %q", id, cid, owner[id])
			}
		}
		n += len(ids)
	}
	if n != len(owner) {
		t.Errorf("%d owners, %d held", len(owner), n)
	}
	nc, _ := r.client.HLen(ctx, F+"consumers").Result()
	nb, _ := r.client.ZCard(ctx, F+"beats").Result()
	if nc != nb {
		t.Errorf("%d consumers, %d beats", nc, nb)
	}
	lastpops, _ := r.client.HKeys(ctx, F+"lastpop").Result()
	for _, cid := range lastpops {
		if ok, _ := r.client.HExists(ctx, F+"consumers", cid).Result(); !ok {
			t.Errorf("last pop of consumer %s, which is not registered", cid)
		}
	}
	ab, _ := r.client.HKeys(ctx, F+"abandons").Result()
	for _, id := range ab {
		if ok, _ := r.client.HExists(ctx, F+"meta", id).Result(); !ok {
			t.Errorf("abandons of entry %s, which is gone", id)
		}
	}
	reasons, _ := r.client.HKeys(ctx, F+"reason").Result()
	for _, id := range reasons {
		if err := r.client.ZScore(ctx, F+"dead", id).Err(); err != nil {
			t.Errorf("reason of entry %s, which is not dead (%v)", id, err)
		}
	}
	c, err := r.counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ni, _ := r.client.ZCard(ctx, F+"inflight").Result()
	nd, _ := r.client.ZCard(ctx, F+"dead").Result()
	if c.InFlight != ni || c.Dead != nd {
		t.Errorf("counts %+v, %d in flight, %d dead", c, ni, nd)
	}
}

func priorities(ls []Leased) []int {
	var out []int
	for _, l := range ls {
		out = append(out, l.Priority)
	}
	return out
}

// sqliteInvariants checks that the SQLite frontier's bookkeeping matches
// its rows: each queue's counters and head priority, and the totals; and
// that only dead requests have a fail reason.
func sqliteInvariants(t *testing.T, f *SQLite) {
	t.Helper()
	var stray, tables int
	if err := f.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'frontier_dead_reasons'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables > 0 {
		if err := f.db.QueryRow(`SELECT count(*) FROM frontier_dead_reasons r
			WHERE NOT EXISTS (SELECT 1 FROM frontier_entries e WHERE e.id = r.id AND e.state = 2)`).Scan(&stray); err != nil {
			t.Fatal(err)
		}
	}
	if stray > 0 {
		t.Errorf("%d fail reasons of requests that are not dead", stray)
	}
	rows, err := f.db.Query(`SELECT q.id, q.queued, q.in_flight, q.dead, q.top,
		(SELECT count(*) FROM frontier_entries e WHERE e.queue = q.id AND e.state = 0),
		(SELECT count(*) FROM frontier_entries e WHERE e.queue = q.id AND e.state = 1),
		(SELECT count(*) FROM frontier_entries e WHERE e.queue = q.id AND e.state = 2),
		coalesce((SELECT max(prio) FROM frontier_entries e WHERE e.queue = q.id AND e.state = 0), 0)
		FROM frontier_queues q`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, queued, inFlight, dead, top, rq, ri, rd, rtop int64
		rows.Scan(&id, &queued, &inFlight, &dead, &top, &rq, &ri, &rd, &rtop)
		if queued != rq || inFlight != ri || dead != rd || (queued > 0 && top != rtop) {
			t.Errorf("queue %d: counters %d/%d/%d top %d, rows %d/%d/%d top %d", id, queued, inFlight, dead, top, rq, ri, rd, rtop)
		}
	}
}

// agreeSeeds and agreeSteps size TestBackendsAgree; FRONTIER_AGREE=seeds
// runs more (the CI default keeps it under a second or two).
var agreeSeeds, agreeSteps = envInt("FRONTIER_AGREE", 4), 300
