package frontier

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// BenchmarkRedisPopWorkers: W workers (1, 4, 16), each a consumer of its
// own with its own connection pool (as W machines' `cqueue pop` are),
// pop one crawl's queue (FRONTIER_BENCH_N requests, default 1,000,000 — run
// it with FRONTIER_BENCH_N=100000 for minutes, not tens of them — over
// 1,000 hosts) with leases, 128 at a time (pop's default --batch), on one
// redis-server, on a Redis Cluster of three masters (every key of a crawl
// is in one slot, so one node serves it), and on that cluster with the
// crawl split over three slots, one a master (shards=3: "sharded"; see
// Redis). Each iteration pushes a
// fresh crawl first (not timed); the figure is pops with lease per
// second over the pops' wall time.
//
//	FRONTIER_BENCH_N=100000 go test ./internal/frontier -run '^$' -bench 'BenchmarkRedisPopWorkers' -benchtime 3x
func BenchmarkRedisPopWorkers(b *testing.B) {
	for _, where := range []string{"redis", "cluster", "sharded"} {
		for _, w := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/workers=%d", where, w), func(b *testing.B) {
				benchPopWorkers(b, benchURL(b, where), w)
			})
		}
	}
}

// benchURL is the benchmarks' redis-server ("redis") or the shared
// cluster ("cluster"; "sharded": with shards=3), started on first use.
func benchURL(b *testing.B, where string) string {
	switch where {
	case "redis":
		return redisTemplateServer(b)
	case "sharded":
		return redistest.SharedCluster(b) + "?shards=3"
	}
	return redistest.SharedCluster(b)
}

// masterCPU returns the CPU seconds (user and system) each master of the
// cluster, or the one server, at url has used.
func masterCPU(b *testing.B, url string) map[string]float64 {
	c, err := storage.DialRedis(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex
	out := map[string]float64{}
	read := func(ctx context.Context, m *redis.Client) error {
		info, err := m.Info(ctx, "cpu").Result()
		if err != nil {
			return err
		}
		sec := 0.0
		for _, line := range strings.Split(info, "\r\n") {
			k, v, _ := strings.Cut(line, ":")
			if k == "used_cpu_user" || k == "used_cpu_sys" {
				x, _ := strconv.ParseFloat(v, 64)
				sec += x
			}
		}
		mu.Lock()
		out[m.Options().Addr] = sec
		mu.Unlock()
		return nil
	}
	switch cl := c.Client.(type) {
	case *redis.ClusterClient:
		err = cl.ForEachMaster(ctx, read)
	case *redis.Client:
		err = read(ctx, cl)
	}
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// masterLoad adds up, over a benchmark's iterations, the masters' CPU
// seconds and the busiest master's (each iteration's crawl has a prefix,
// so a slot, of its own).
type masterLoad struct{ total, busiest float64 }

// add adds one iteration: the masters' CPU seconds before and after it.
func (l *masterLoad) add(before, after map[string]float64) {
	busiest := 0.0
	for addr, t := range after {
		d := t - before[addr]
		l.total += d
		busiest = max(busiest, d)
	}
	l.busiest += busiest
}

// report reports the busiest master's share of the masters' CPU seconds,
// and the records per CPU second of the busiest master: what one node
// serves with a core to itself.
func (l *masterLoad) report(b *testing.B, records float64) {
	if l.total > 0 && l.busiest > 0 {
		b.ReportMetric(l.busiest/l.total, "busiest-master-share")
		b.ReportMetric(records/l.busiest, "per-busiest-master-cpu-s")
	}
}

// benchFlush empties the server or every master of the cluster at url.
func benchFlush(b *testing.B, url string) {
	c, err := storage.DialRedis(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if cc, ok := c.Client.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.FlushAll(ctx).Err() })
	} else {
		err = c.Client.FlushAll(ctx).Err()
	}
	if err != nil {
		b.Fatal(err)
	}
}

var (
	benchServerOnce sync.Once
	benchServerURL  string
)

// redisTemplateServer is one redis-server for the process's benchmarks.
func redisTemplateServer(b *testing.B) string {
	benchServerOnce.Do(func() { benchServerURL = redistest.Start(&processTB{b}) })
	return benchServerURL
}

func benchPopWorkers(b *testing.B, url string, workers int) {
	n := benchN() / benchBatch * benchBatch
	var popped, elapsed float64
	var load masterLoad
	for b.Loop() {
		b.StopTimer()
		prefix := fmt.Sprintf("w%d:", prefixN.Add(1))
		fill, err := OpenRedis(ctx, url, Options{Prefix: prefix})
		if err != nil {
			b.Fatal(err)
		}
		for i := range n / benchBatch {
			if _, err := fill.Push(ctx, benchEntries(b, i), t0); err != nil {
				b.Fatal(err)
			}
		}
		var fs []Frontier
		var cs []Consumer
		for i := range workers {
			f, err := OpenRedis(ctx, url, Options{Prefix: prefix})
			if err != nil {
				b.Fatal(err)
			}
			c := ThisMachine()
			c.ID = fmt.Sprintf("bench-%d-%d", prefixN.Load(), i)
			if c, err = f.Join(ctx, c, t0); err != nil {
				b.Fatal(err)
			}
			fs, cs = append(fs, f), append(cs, c)
		}
		cpu0 := masterCPU(b, url)
		b.StartTimer()
		start := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		for i := range workers {
			wg.Go(func() {
				got := 0
				for {
					res, err := fs[i].Pop(ctx, PopOptions{Max: 128, Lease: time.Hour, Consumer: cs[i]}, t0)
					if err != nil {
						b.Error(err)
						return
					}
					if len(res.Leased) == 0 {
						break
					}
					got += len(res.Leased)
				}
				mu.Lock()
				total += got
				mu.Unlock()
			})
		}
		wg.Wait()
		elapsed += time.Since(start).Seconds()
		b.StopTimer()
		popped += float64(total)
		load.add(cpu0, masterCPU(b, url))
		if total != n {
			b.Fatalf("popped %d of %d", total, n)
		}
		for _, f := range fs {
			f.Close()
		}
		// Free the crawl: the next iteration makes its own.
		fill.Close()
		benchFlush(b, url)
		b.StartTimer()
	}
	b.ReportMetric(popped/elapsed, "pops/s")
	load.report(b, popped)
}

// BenchmarkRedisPushWorkers: W workers (1, 4, 16), each with its own
// connection pool, push one crawl's requests (FRONTIER_BENCH_N, over
// 1,000 hosts, every one new) in batches of 1,000, on one redis-server,
// on a Redis Cluster of three masters, and split over its masters
// (shards=3): pushes per second over the pushes'
// wall time, every push checked against the duplicate filter.
//
//	FRONTIER_BENCH_N=100000 go test ./internal/frontier -run '^$' -bench 'BenchmarkRedisPushWorkers' -benchtime 3x
func BenchmarkRedisPushWorkers(b *testing.B) {
	for _, where := range []string{"redis", "cluster", "sharded"} {
		for _, w := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/workers=%d", where, w), func(b *testing.B) {
				benchPushWorkers(b, benchURL(b, where), w)
			})
		}
	}
}

func benchPushWorkers(b *testing.B, url string, workers int) {
	batches := benchN() / benchBatch
	var pushed, elapsed float64
	var load masterLoad
	for b.Loop() {
		b.StopTimer()
		prefix := fmt.Sprintf("pw%d:", prefixN.Add(1))
		var fs []Frontier
		for range workers {
			f, err := OpenRedis(ctx, url, Options{Prefix: prefix})
			if err != nil {
				b.Fatal(err)
			}
			fs = append(fs, f)
		}
		cpu0 := masterCPU(b, url)
		b.StartTimer()
		start := time.Now()
		var wg sync.WaitGroup
		for i := range workers {
			wg.Go(func() {
				for k := i; k < batches; k += workers {
					if _, err := fs[i].Push(ctx, benchEntries(b, k), t0); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		elapsed += time.Since(start).Seconds()
		b.StopTimer()
		load.add(cpu0, masterCPU(b, url))
		pushed += float64(batches * benchBatch)
		c, err := fs[0].Counts(ctx)
		if err != nil || c.Queued != int64(batches*benchBatch) {
			b.Fatalf("queued %+v, %v; want %d", c, err, batches*benchBatch)
		}
		for _, f := range fs {
			f.Close()
		}
		benchFlush(b, url)
		b.StartTimer()
	}
	b.ReportMetric(pushed/elapsed, "pushes/s")
	load.report(b, pushed)
}
