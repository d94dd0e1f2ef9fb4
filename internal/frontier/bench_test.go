package frontier

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// Benchmarks at scale (not run by CI; go test -run '^$' -bench . -benchtime 20x):
// a frontier is filled once per process with FRONTIER_BENCH_N requests
// (default 1,000,000) over 1,000 hosts, then each benchmark measures
// pushes (batches of 1,000, duplicate filter on) and pop+ack (batches of
// 100) on top of it, and reports records/s and the storage per queued URL.

const benchBatch = 1000

func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("FRONTIER_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// benchEntries returns batch i: benchBatch distinct, realistic requests.
func benchEntries(tb testing.TB, i int) []Entry {
	out := make([]Entry, 0, benchBatch)
	for j := range benchBatch {
		k := i*benchBatch + j
		// The follow-ups of a page are mostly on its host: a batch of 1,000
		// spans 20 hosts, 1,000 hosts in all.
		r := record.Request{
			Kind:     record.KindRequest,
			URL:      fmt.Sprintf("https://shop%d.example.com/catalogue/category/books_%d/page-%d.html?sort=price&ref=%d", (k/50)%1000, k%37, k, k%7),
			CrawlID:  "crawl-2030-01",
			AppID:    "benchapp",
			Depth:    k % 4,
			Priority: k % 3,
			MaxDepth: 5,
			Referer:  fmt.Sprintf("https://shop%d.example.com/catalogue/page-%d.html", (k/50)%1000, k/50),
		}
		e, err := NewEntry(r, KeyFast)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

var (
	benchOnce sync.Once
	benchDir  string
	benchFill struct {
		path    string
		bytes   int64
		seconds float64
		err     error
	}
)

// sqliteTemplate fills an SQLite frontier once and returns its path.
func sqliteTemplate(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchFill.err = os.MkdirTemp("", "frontier-bench-")
		if benchFill.err != nil {
			return
		}
		path := filepath.Join(benchDir, "template.db")
		f, err := OpenSQLite(ctx, path, Options{})
		if err != nil {
			benchFill.err = err
			return
		}
		start := time.Now()
		for i := range benchN() / benchBatch {
			if _, err := f.Push(ctx, benchEntries(b, i), t0); err != nil {
				benchFill.err = err
				return
			}
		}
		benchFill.seconds = time.Since(start).Seconds()
		f.Close()
		fi, err := os.Stat(path)
		if err != nil {
			benchFill.err = err
			return
		}
		benchFill.path, benchFill.bytes = path, fi.Size()
	})
	if benchFill.err != nil {
		b.Fatal(benchFill.err)
	}
	return benchFill.path
}

func copyFile(b *testing.B, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}

// openBenchSQLite opens a fresh copy of the filled template.
func openBenchSQLite(b *testing.B) *SQLite {
	tmpl := sqliteTemplate(b)
	path := filepath.Join(b.TempDir(), "f.db")
	copyFile(b, tmpl, path)
	f, err := OpenSQLite(ctx, path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

// BenchmarkSQLiteFill reports the one-time fill: pushes/s from empty to
// FRONTIER_BENCH_N, and the file size per queued URL.
func BenchmarkSQLiteFill(b *testing.B) {
	sqliteTemplate(b)
	for b.Loop() {
	}
	n := float64(benchN())
	b.ReportMetric(n/benchFill.seconds, "pushes/s")
	b.ReportMetric(float64(benchFill.bytes)/n, "bytes/URL")
}

func BenchmarkSQLitePush(b *testing.B) {
	f := openBenchSQLite(b)
	batches := make([][]Entry, 0, 64)
	i := benchN() / benchBatch
	for b.Loop() {
		b.StopTimer()
		if len(batches) == 0 {
			for range 64 {
				batches = append(batches, benchEntries(b, i))
				i++
			}
		}
		es := batches[0]
		batches = batches[1:]
		b.StartTimer()
		res, err := f.Push(ctx, es, t0)
		if err != nil {
			b.Fatal(err)
		}
		if !res[0].Queued {
			b.Fatalf("refused: %+v", res[0])
		}
	}
	b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "pushes/s")
}

func BenchmarkSQLitePopAck(b *testing.B) {
	benchPopAck(b, openBenchSQLite(b), 100)
}

// BenchmarkSQLitePop: pops with leases only (no acks; they stay in flight).
func BenchmarkSQLitePop(b *testing.B) {
	benchPop(b, openBenchSQLite(b), 100)
}

func benchPop(b *testing.B, f Frontier, batch int) {
	for b.Loop() {
		res, err := f.Pop(ctx, PopOptions{Max: batch, Lease: time.Hour}, t0)
		ls := res.Leased
		if err != nil {
			b.Fatal(err)
		}
		if len(ls) != batch {
			b.Fatalf("popped %d", len(ls))
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "pops/s")
}

func BenchmarkSQLitePopAck1000(b *testing.B) {
	benchPopAck(b, openBenchSQLite(b), 1000)
}

func benchPopAck(b *testing.B, f Frontier, batch int) {
	now := t0
	for b.Loop() {
		res, err := f.Pop(ctx, PopOptions{Max: batch, Lease: time.Minute}, now)
		ls := res.Leased
		if err != nil {
			b.Fatal(err)
		}
		if len(ls) != batch {
			b.Fatalf("popped %d", len(ls))
		}
		if _, err := f.Ack(ctx, leases(ls), now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "pops/s")
}

// BenchmarkNewEntry is the per-request cost before Push: decode,
// canonicalize, fingerprint, encode.
func BenchmarkNewEntry(b *testing.B) {
	raw := []byte(`{"kind":"request","url":"https://shop1.example.com/catalogue/category/books_1/page-1.html?sort=price&ref=1","crawlid":"crawl-2030-01","appid":"benchapp","depth":1,"maxdepth":5}`)
	for b.Loop() {
		if _, err := ParseEntry(raw, KeyFast); err != nil {
			b.Fatal(err)
		}
	}
}

var (
	redisOnce sync.Once
	redisURL  string
	redisFill struct {
		seconds float64
		memory  int64
		err     error
	}
)

// redisTemplate fills a Redis frontier (prefix "tmpl:") once.
func redisTemplate(b *testing.B) string {
	redisOnce.Do(func() {
		// One server for all the benchmarks of the process; it stops with it.
		redisURL = redistest.Start(&processTB{b})
		f, err := OpenRedis(ctx, redisURL, Options{Prefix: "tmpl:"})
		if err != nil {
			redisFill.err = err
			return
		}
		defer f.Close()
		start := time.Now()
		for i := range benchN() / benchBatch {
			if _, err := f.Push(ctx, benchEntries(b, i), t0); err != nil {
				redisFill.err = err
				return
			}
		}
		redisFill.seconds = time.Since(start).Seconds()
		info, err := f.conn.Client.Info(ctx, "memory").Result()
		if err != nil {
			redisFill.err = err
			return
		}
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				redisFill.memory, _ = strconv.ParseInt(v, 10, 64)
			}
		}
	})
	if redisFill.err != nil {
		b.Fatal(redisFill.err)
	}
	return redisURL
}

// processTB keeps the benchmark's redis-server for the whole process: its
// Cleanup is never called (the server dies with the test binary's process
// group only if killed, so TestMain stops it).
type processTB struct{ testing.TB }

func (p *processTB) Cleanup(fn func()) { benchCleanups = append(benchCleanups, fn) }

var benchCleanups []func()

func BenchmarkRedisFill(b *testing.B) {
	redisTemplate(b)
	for b.Loop() {
	}
	n := float64(benchN())
	b.ReportMetric(n/redisFill.seconds, "pushes/s")
	b.ReportMetric(float64(redisFill.memory)/n, "bytes/URL")
}

// openBenchRedis copies the template's keys to a fresh prefix.
func openBenchRedis(b *testing.B) *Redis {
	url := redisTemplate(b)
	prefix := fmt.Sprintf("b%d:", prefixN.Add(1))
	f, err := OpenRedis(ctx, url, Options{Prefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	var cursor uint64
	for {
		keys, next, err := f.conn.Client.Scan(ctx, cursor, "tmpl:*", 1000).Result()
		if err != nil {
			b.Fatal(err)
		}
		pipe := f.conn.Client.Pipeline()
		for _, k := range keys {
			pipe.Copy(ctx, k, prefix+strings.TrimPrefix(k, "tmpl:"), 0, true)
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			b.Fatal(err)
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	b.Cleanup(func() {
		// Free the copy: the next benchmark makes its own.
		var cursor uint64
		for {
			keys, next, _ := f.conn.Client.Scan(ctx, cursor, prefix+"*", 1000).Result()
			if len(keys) > 0 {
				f.conn.Client.Unlink(ctx, keys...)
			}
			if next == 0 {
				return
			}
			cursor = next
		}
	})
	return f
}

func BenchmarkRedisPush(b *testing.B) {
	f := openBenchRedis(b)
	i := benchN() / benchBatch
	var batches [][]Entry
	for b.Loop() {
		b.StopTimer()
		if len(batches) == 0 {
			for range 64 {
				batches = append(batches, benchEntries(b, i))
				i++
			}
		}
		es := batches[0]
		batches = batches[1:]
		b.StartTimer()
		if _, err := f.Push(ctx, es, t0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "pushes/s")
}

func BenchmarkRedisPop(b *testing.B) {
	benchPop(b, openBenchRedis(b), 100)
}

func BenchmarkRedisPopAck(b *testing.B) {
	benchPopAck(b, openBenchRedis(b), 100)
}

// BenchmarkSQLiteLoopTurn is a turn of `cqueue pop --follow` in the crawl
// loop: a registered consumer pops a few requests (16) and the acks of the
// previous turn come back, so the fixed costs of a transaction dominate.
func BenchmarkSQLiteLoopTurn(b *testing.B) {
	f := openBenchSQLite(b)
	c, err := f.Join(ctx, ThisMachine(), t0)
	if err != nil {
		b.Fatal(err)
	}
	const batch = 16
	var prev []Leased
	for b.Loop() {
		if len(prev) > 0 {
			if _, err := f.Ack(ctx, leases(prev), t0); err != nil {
				b.Fatal(err)
			}
		}
		res, err := f.Pop(ctx, PopOptions{Max: batch, Lease: time.Minute, Consumer: c, Window: 256}, t0)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Leased) != batch {
			b.Fatalf("popped %d", len(res.Leased))
		}
		prev = res.Leased
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "pops/s")
}

// BenchmarkSQLitePopVarying pops batches of changing size, as the crawl
// loop does (what its window leaves, what is ready): a statement that
// depended on the batch's size would be prepared again at each pop.
func BenchmarkSQLitePopVarying(b *testing.B) {
	f := openBenchSQLite(b)
	n, popped := 0, 0
	for b.Loop() {
		n = n%16 + 1
		res, err := f.Pop(ctx, PopOptions{Max: n, Lease: time.Hour}, t0)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Leased) != n {
			b.Fatalf("popped %d", len(res.Leased))
		}
		popped += n
	}
	b.ReportMetric(float64(popped)/b.Elapsed().Seconds(), "pops/s")
}
