package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// TestLoopRidesOutAFailover: a crawl loop on a Redis Cluster of three
// masters with a replica each loses the master serving the crawl's slot
// mid-crawl (SIGKILL, once the replica has read the master's writes so
// far); the cluster promotes its replica (after the
// 5 s node timeout), the tools find it (they ask the cluster for its
// slots again while they retry) and the loop goes on by itself: every
// process exits 0 and every product is exported. Replication is
// asynchronous, so the last writes before the kill may be lost with the
// master: the state goes back to an earlier consistent point and the
// pages done since are handed out again, which can export a product
// twice (counted, and logged; at most the window).
func TestLoopRidesOutAFailover(t *testing.T) { testFailover(t, false, 1) }

// TestLoopWithWaitLosesNothingInAFailover: the same with wait=1 in the
// Redis URL, and the master killed without waiting for its replica: every
// write a tool went on from was on the replica (WAIT 1), so the promoted
// replica has the whole crawl as the tools last saw it, and nothing is
// fetched or exported twice.
func TestLoopWithWaitLosesNothingInAFailover(t *testing.T) { testFailover(t, true, 1) }

// TestSplitLoopWithWaitLosesNothingInAFailover: the same with the crawl
// split over the three masters (shards=3), and the master killed the one
// serving the shard of the site's host: the other shards go on, that one
// rides out the failover, and nothing is fetched or exported twice.
func TestSplitLoopWithWaitLosesNothingInAFailover(t *testing.T) { testFailover(t, true, 3) }

func testFailover(t *testing.T, wait bool, shards int) {
	if testing.Short() {
		t.Skip("timed pipelines are skipped with -short")
	}
	t.Parallel() // its own cluster, site and loop; mostly waiting for the failover
	bin := binDir(t)
	cluster := redistest.NewCluster(t, redistest.ClusterOptions{Replicas: 1})
	conn, err := storage.DialRedis(context.Background(), cluster.URL)
	if err != nil {
		t.Fatal(err)
	}
	prefix, err := conn.KeyPrefix("")
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	site := loopSite
	site.Latency = 40 * time.Millisecond // the failover lands mid-crawl
	url := cluster.URL + fmt.Sprintf("?shards=%d", shards)
	if wait {
		url += "&wait=1&wait_timeout=500ms"
	}
	l := newRedisLoop(t, bin, url, site)
	// The crawl's slot: split, that of the shard of the site's one host.
	host := fingerprint.Host(l.url + "/")
	slotKey := storage.ShardPrefixes(prefix, shards)[storage.ShardOf(host, shards)] + "f:counts"
	c, stderr := l.start()
	l.waitRequests(60, 30*time.Second)
	master, err := cluster.MasterOf(slotKey)
	if err != nil {
		t.Fatal(err)
	}
	before := l.site.Stats().Requests
	// The replica has read what the master wrote so far: a replica that
	// lags loses what it had not received with the master (Redis's
	// asynchronous replication), and this test is of the tools riding out
	// the failover.
	var offset int64
	if !wait {
		if offset, err = cluster.WaitReplicaCaughtUp(master, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	killed := time.Now()
	cluster.Kill(master)
	next, err := cluster.WaitMaster(slotKey, master, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	caught := fmt.Sprintf("its replica at offset %d", offset)
	if wait {
		caught = "its replica not waited for"
	}
	t.Logf("master %s killed after %d requests, %s; %s took over %v later", master, before, caught, next, time.Since(killed).Round(100*time.Millisecond))
	if wait {
		// The new master has no replica: with wait=1 the tools wait
		// (retrying) until the old master, restarted, replicates it.
		if err := cluster.Restart(master); err != nil {
			t.Fatal(err)
		}
	}

	l.waitEnd(c, stderr)
	if l.site.Stats().Requests <= before {
		t.Errorf("the failover did not land mid-crawl: %d requests before it, %d in all", before, l.site.Stats().Requests)
	}
	dups := l.checkItems() // every product exported, or the test fails
	st := l.site.Stats()
	t.Logf("after the failover: %d products exported twice, %d requests the site saw twice, of %d; frontier stats %s",
		dups, st.Duplicates, st.Requests, strings.TrimSpace(l.run("cqueue stats $DB | jq -c .counters")))
	t.Logf("loop ended %v after the kill; stderr:\n%s", time.Since(killed).Round(100*time.Millisecond), stderr.String())
	// At most the requests in flight at the kill (the window, 32) are
	// fetched again, and only if the writes that leased them were lost
	// with the master.
	if st.Duplicates > 32 {
		t.Errorf("%d requests fetched twice, more than the window of 32", st.Duplicates)
	}
	if wait && (st.Duplicates > 0 || dups > 0) {
		t.Errorf("with wait=1, %d requests fetched twice and %d products exported twice; want none", st.Duplicates, dups)
	}
	if out := stderr.String(); !strings.Contains(out, "retrying for up to") {
		t.Errorf("stderr does not say the tools retried:\n%s", out)
	}
}
