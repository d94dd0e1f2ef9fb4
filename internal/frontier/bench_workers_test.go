package frontier

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// BenchmarkRedisPopWorkers: W workers (1, 4, 16), each a consumer of its
// own with its own connection pool (as W machines' `cqueue pop` are),
// pop one crawl's queue (FRONTIER_BENCH_N requests, default 1,000,000 — run
// it with FRONTIER_BENCH_N=100000 for minutes, not tens of them — over
// 1,000 hosts) with leases, 128 at a time (pop's default --batch), on one
// redis-server and on a Redis Cluster of three masters (every key of a
// crawl is in one slot, so one node serves it). Each iteration pushes a
// fresh crawl first (not timed); the figure is pops with lease per
// second over the pops' wall time.
//
//	FRONTIER_BENCH_N=100000 go test ./internal/frontier -run '^$' -bench 'BenchmarkRedisPopWorkers' -benchtime 3x
func BenchmarkRedisPopWorkers(b *testing.B) {
	for _, where := range []string{"redis", "cluster"} {
		for _, w := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/workers=%d", where, w), func(b *testing.B) {
				benchPopWorkers(b, benchURL(b, where), w)
			})
		}
	}
}

// benchURL is the benchmarks' redis-server ("redis") or the shared
// cluster ("cluster"), started on first use.
func benchURL(b *testing.B, where string) string {
	if where == "redis" {
		return redisTemplateServer(b)
	}
	return redistest.SharedCluster(b)
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
	for b.Loop() {
		b.StopTimer()
		prefix := fmt.Sprintf("w%d:", prefixN.Add(1))
		fill, err := openRedis(ctx, url, Options{Prefix: prefix})
		if err != nil {
			b.Fatal(err)
		}
		for i := range n / benchBatch {
			if _, err := fill.Push(ctx, benchEntries(b, i), t0); err != nil {
				b.Fatal(err)
			}
		}
		var fs []*Redis
		var cs []Consumer
		for i := range workers {
			f, err := openRedis(ctx, url, Options{Prefix: prefix})
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
		if total != n {
			b.Fatalf("popped %d of %d", total, n)
		}
		for _, f := range fs {
			f.Close()
		}
		// Free the crawl: the next iteration makes its own.
		fill.client.FlushAll(ctx)
		fill.Close()
		b.StartTimer()
	}
	b.ReportMetric(popped/elapsed, "pops/s")
}

// BenchmarkRedisPushWorkers: W workers (1, 4, 16), each with its own
// connection pool, push one crawl's requests (FRONTIER_BENCH_N, over
// 1,000 hosts, every one new) in batches of 1,000, on one redis-server and
// on a Redis Cluster of three masters: pushes per second over the pushes'
// wall time, every push checked against the duplicate filter.
//
//	FRONTIER_BENCH_N=100000 go test ./internal/frontier -run '^$' -bench 'BenchmarkRedisPushWorkers' -benchtime 3x
func BenchmarkRedisPushWorkers(b *testing.B) {
	for _, where := range []string{"redis", "cluster"} {
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
	for b.Loop() {
		b.StopTimer()
		prefix := fmt.Sprintf("pw%d:", prefixN.Add(1))
		var fs []*Redis
		for range workers {
			f, err := openRedis(ctx, url, Options{Prefix: prefix})
			if err != nil {
				b.Fatal(err)
			}
			fs = append(fs, f)
		}
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
		pushed += float64(batches * benchBatch)
		c, err := fs[0].Counts(ctx)
		if err != nil || c.Queued != int64(batches*benchBatch) {
			b.Fatalf("queued %+v, %v; want %d", c, err, batches*benchBatch)
		}
		fs[0].client.FlushAll(ctx)
		for _, f := range fs {
			f.Close()
		}
		b.StartTimer()
	}
	b.ReportMetric(pushed/elapsed, "pushes/s")
}
