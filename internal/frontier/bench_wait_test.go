package frontier

import (
	"fmt"
	"sync"
	"testing"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// BenchmarkRedisPopWait: what wait=1 in the URL costs (every pop returns
// once the replica has its leases): 1 and 16 workers popping with leases
// from one redis-server with one replica, without and with wait=1.
//
//	FRONTIER_BENCH_N=100000 go test ./internal/frontier -run '^$' -bench 'BenchmarkRedisPopWait' -benchtime 3x
func BenchmarkRedisPopWait(b *testing.B) {
	for _, w := range []int{1, 16} {
		for _, wait := range []string{"", "?wait=1"} {
			name := "nowait"
			if wait != "" {
				name = "wait=1"
			}
			b.Run(fmt.Sprintf("%s/workers=%d", name, w), func(b *testing.B) {
				benchPopWorkers(b, replicatedServer(b)+wait, w)
			})
		}
	}
}

var (
	replicatedOnce sync.Once
	replicatedURL  string
)

// replicatedServer is one redis-server with one replica for the process's
// benchmarks.
func replicatedServer(b *testing.B) string {
	replicatedOnce.Do(func() {
		m := redistest.StartServer(&processTB{b}, "--repl-diskless-sync-delay", "0")
		redistest.StartReplica(&processTB{b}, m)
		replicatedURL = m.URL()
	})
	return replicatedURL
}
