package render

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/integration"
)

// BenchmarkRender renders the test site's product list (a fetch() of
// JSON built into the DOM) at --render-concurrency 1 and 4, and reports
// pages/s and the peak RSS of the browser's processes (sampled after
// each page).
func BenchmarkRender(b *testing.B) {
	integration.Skip(b, "starts Chromium")
	s := newSite(b)
	for _, conc := range []int{1, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			opts := DefaultOptions()
			opts.Concurrency = conc
			opts.Wait = Wait{Kind: WaitSelector, Selector: ".product"}
			opts.Timeout = 2 * time.Minute
			r, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Render(context.Background(), &Request{URL: s.URL + "/list.html"}); err != nil {
				b.Fatal(err) // the browser is up before the clock starts
			}
			var peak int64
			var mu sync.Mutex
			sample := func() {
				rss := treeRSS(r.DataDir())
				mu.Lock()
				peak = max(peak, rss)
				mu.Unlock()
			}
			jobs := make(chan int)
			var wg sync.WaitGroup
			start := time.Now()
			b.ResetTimer()
			for range conc {
				wg.Go(func() {
					for i := range jobs {
						p, err := r.Render(context.Background(), &Request{URL: fmt.Sprintf("%s/list.html?i=%d", s.URL, i)})
						if err != nil {
							b.Error(err)
							continue
						}
						if !strings.Contains(p.HTML, "Teapot") {
							b.Errorf("page %d not built", i)
						}
						sample()
					}
				})
			}
			for i := range b.N {
				jobs <- i
			}
			close(jobs)
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pages/s")
			b.ReportMetric(float64(peak)/(1<<20), "MiB-rss-peak")
		})
	}
}

// treeRSS is the summed resident memory of the processes with dir as
// their profile, in bytes (shared pages counted in each process).
func treeRSS(dir string) int64 {
	var total int64
	for _, pid := range ProcessesUsing(dir) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				total += kb << 10
			}
		}
	}
	return total
}
