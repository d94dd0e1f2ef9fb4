package frontier

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestBackendsAgree drives both backends through the same random sequence
// of pushes, pops, acks, lease expiries, stops and expiries, and checks that
// they answer exactly alike at every step: the two are independent
// implementations of one deterministic algorithm (priority, FIFO, the
// rotation among queues, ids and turns), so any difference is a bug in one.
func TestBackendsAgree(t *testing.T) {
	for seed := range uint64(agreeSeeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			o := Options{MaxLeaseExpiries: 2}
			if seed%2 == 1 {
				o.Order, o.DepthPriority = LIFO, 1
			}
			bs := backends(t)
			fs := []Frontier{bs["sqlite"](t, o), bs["redis"](t, o)}
			agree(t, rand.New(rand.NewPCG(seed, 42)), fs)
		})
	}
}

func agree(t *testing.T, rnd *rand.Rand, fs []Frontier) {
	now := t0
	inflight := []map[string]string{{}, {}} // url → lease, per backend
	var urlsSeen []string
	for step := range agreeSteps {
		now = now.Add(time.Duration(rnd.IntN(20)) * time.Second)
		var what string
		var got [2]string
		switch op := rnd.IntN(10); {
		case op < 4:
			n := 1 + rnd.IntN(8)
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
				if rnd.IntN(8) == 0 {
					kv = append(kv, "expires", now.Add(time.Duration(rnd.IntN(120)-20)*time.Second).Unix())
				}
				es = append(es, req(t, u, kv...))
			}
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
			what = fmt.Sprintf("pop %d", n)
			for i, f := range fs {
				ls, err := f.Pop(ctx, n, lease, now)
				if err != nil {
					t.Fatal(err)
				}
				us := urls(t, ls)
				for j, u := range us {
					inflight[i][u] = ls[j].Lease
				}
				got[i] = fmt.Sprint(us, priorities(ls))
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
				r, err := f.Apply(ctx, Batch{Releases: ls}, now)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = fmt.Sprint(r)
			}
		case op < 9:
			// Ack a random subset of what is in flight, the same URLs in both.
			var pick []string
			for u := range inflight[0] {
				if rnd.IntN(2) == 0 {
					pick = append(pick, u)
				}
			}
			slices.Sort(pick)
			what = fmt.Sprintf("ack %d", len(pick))
			for i, f := range fs {
				var ls []string
				for _, u := range pick {
					ls = append(ls, inflight[i][u])
					delete(inflight[i], u)
				}
				r, err := f.Ack(ctx, ls, now)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = fmt.Sprint(r)
			}
		default:
			switch rnd.IntN(3) {
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
		sqliteInvariants(t, fs[0].(*SQLite))
		if t.Failed() {
			t.Fatalf("step %d (%s): SQLite bookkeeping is off", step, what)
		}
		if got[0] != got[1] {
			t.Fatalf("step %d (%s): sqlite %s, redis %s", step, what, got[0], got[1])
		}
		var state [2]string
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
			state[i] = fmt.Sprint(c, jsonOf(info), st)
		}
		if state[0] != state[1] {
			t.Fatalf("step %d (%s): state differs:\nsqlite %s\nredis  %s", step, what, state[0], state[1])
		}
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
// its rows: each queue's counters and head priority, and the totals.
func sqliteInvariants(t *testing.T, f *SQLite) {
	t.Helper()
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
