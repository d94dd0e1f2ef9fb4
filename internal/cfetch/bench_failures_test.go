package cfetch

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkIsolated503s crawls a shop of 1000 pages, each answered in
// 20 ms, where 1% of the pages answer 503 with "Retry-After: 1" the first
// time they are asked for, and reports the seconds the whole crawl took
// (--per-host 8: 2.5 s at best, plus the last retry's second). A host
// that rested for each such 503 would take 10 s more. Run it with
// -benchtime 1x: each run is a whole crawl.
func BenchmarkIsolated503s(b *testing.B) {
	const pages = 1000
	var mu sync.Mutex
	failed := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		var n int
		fmt.Sscanf(r.URL.Path, "/p/%d", &n)
		mu.Lock()
		first := n%100 == 7 && !failed[r.URL.Path]
		failed[r.URL.Path] = true
		mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><title>page</title></html>")
	}))
	defer srv.Close()
	var in strings.Builder
	for i := range pages {
		fmt.Fprintf(&in, "%s/p/%d\n", srv.URL, i)
	}
	var took time.Duration
	for range b.N {
		mu.Lock()
		clear(failed)
		mu.Unlock()
		start := time.Now()
		code := execute(context.Background(), []string{"-q", "--no-robots"}, strings.NewReader(in.String()), io.Discard, io.Discard)
		took = time.Since(start)
		if code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(took.Seconds(), "s/crawl")
}

// BenchmarkSchedulerFailureRates simulates (no network, no sleeping) a
// crawl of one host of 2000 pages answered in 20 ms, --per-host 8, where
// each answer is a 503 (without Retry-After) with probability p, and
// reports the simulated seconds the crawl took, the host's rests, the
// requests sent in the first 2 s, and the pages still failing after
// --retries 2. Without failures the crawl takes 5 s.
func BenchmarkSchedulerFailureRates(b *testing.B) {
	for _, p := range []float64{0, 0.01, 0.05, 0.10, 0.20, 0.50, 1} {
		b.Run(fmt.Sprintf("p=%g", p), func(b *testing.B) {
			var took time.Duration
			var early, failed int
			var rests int64
			for range b.N {
				o := DefaultOptions()
				o.RobotsObey = false
				m := newSim(b, &o)
				rng := rand.New(rand.NewPCG(1, 2))
				m.s.rand = rng.Float64
				rests = 0
				m.s.count = func(group, _ string) {
					if group == "rests" {
						rests++
					}
				}
				m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
					lat := 20 * time.Millisecond
					if rng.Float64() < p {
						if j.req.Retries+j.retries < o.Retries {
							return lat, &finish{kind: finRetry, status: 503, latency: lat, failed: true}
						}
						return lat, &finish{kind: finDone, status: 503, latency: lat, failed: true}
					}
					return lat, &finish{kind: finDone, status: 200, latency: lat}
				}
				m.add(urls("shop.test", 2000)...)
				m.run(100 * time.Hour)
				took = m.at()
				early = len(m.startsBefore(2 * time.Second))
				failed = m.failed
			}
			b.ReportMetric(took.Seconds(), "sim-s")
			b.ReportMetric(float64(rests), "rests")
			b.ReportMetric(float64(early), "sent-in-2s")
			b.ReportMetric(float64(failed), "pages-failed")
		})
	}
}
