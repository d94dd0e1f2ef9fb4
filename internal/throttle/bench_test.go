package throttle

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkReserve measures decisions (one slot reserved or refused for
// one record) per second: one goroutine, or four each with its own handle
// on the state (for SQLite its own connections, as another process has);
// one key per call (a record at a time), or 64 keys per call (a batch of
// records arriving at once). 1,000 keys (hosts) in turn.
//
//	go test ./internal/throttle -run '^$' -bench Reserve -benchtime 3s
func BenchmarkReserve(b *testing.B) {
	const keys = 1000
	r := Rate{Interval: time.Millisecond, Burst: 1}
	for _, be := range backends(b)[1:] { // the reference is not a backend
		for _, handles := range []int{1, 4} {
			for _, batch := range []int{1, 64} {
				b.Run(fmt.Sprintf("%s/handles=%d/batch=%d", be.name, handles, batch), func(b *testing.B) {
					open := be.open(b)
					stores := make([]Store, handles)
					for i := range stores {
						stores[i] = open()
					}
					b.ResetTimer()
					var wg sync.WaitGroup
					per := b.N/handles + 1
					start := time.Now()
					for h, s := range stores {
						wg.Go(func() {
							reqs := make([]Request, batch)
							for i := 0; i < per; i += batch {
								for j := range reqs {
									reqs[j] = Request{Key: fmt.Sprintf("host%d.example.com", (h*7919+i+j)%keys), N: 1, Rate: r, MaxWait: 15 * time.Second}
								}
								if _, err := s.Reserve(ctx, reqs, time.Now()); err != nil {
									b.Error(err)
									return
								}
							}
						})
					}
					wg.Wait()
					el := time.Since(start)
					total := handles * ((per + batch - 1) / batch) * batch
					b.ReportMetric(float64(total)/el.Seconds(), "decisions/s")
				})
			}
		}
	}
}
