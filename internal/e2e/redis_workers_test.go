package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// TestWorkersShareACrawlOnACluster: three crawl loops, each in a process
// group of its own and, where the system lets a user make namespaces,
// under a host name of its own (worker-1, worker-2, worker-3: to the
// frontier, three machines), share one crawl on a Redis Cluster of three
// masters.
//
//   - every_page_once: the three run to the end; the site sees exactly the
//     requests of a perfect crawl (every page once, robots.txt once per
//     worker), and the union of their exports is the site's ground truth,
//     each product once.
//   - one_worker_sigkilled_halfway: worker 2's whole process group is
//     SIGKILLed when half the crawl's requests are made, while it holds
//     requests. Its consumer stops beating; 30 s later (the consumer
//     timeout) another worker's pop declares it dead and puts its
//     requests back, and the two others finish the crawl: every product
//     exported, at most the dead worker's window fetched (and exported)
//     twice.
//
// Each runs twice: with the crawl in one slot, and split over the three
// masters (shards=3, see frontier.Sharded). The four run at once, on the
// same cluster, as four crawls kept apart by their key prefix.
func TestWorkersShareACrawlOnACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("timed pipelines are skipped with -short")
	}
	bin := binDir(t)
	cluster := redistest.NewCluster(t, redistest.ClusterOptions{})
	machines := ownHostNames(t)
	site := loopSite
	site.Latency = 20 * time.Millisecond // each worker has fetches in flight

	for _, split := range []string{"", "&shards=3"} {
		name := "one_slot"
		if split != "" {
			name = "sharded"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testWorkersShareACrawl(t, bin, cluster.URL+"?prefix=workers-"+name, split, site, machines)
		})
	}
}

func testWorkersShareACrawl(t *testing.T, bin, url, split string, site demosite.Options, machines bool) {
	t.Run("every_page_once", func(t *testing.T) {
		t.Parallel()
		l := newRedisLoop(t, bin, url+"-clean:"+split, site)
		ws := l.startWorkers(3, machines)
		for i, w := range ws {
			l.waitWorker(i, w)
		}
		if dups := l.checkItems(); dups != 0 {
			t.Errorf("%d products exported twice", dups)
		}
		l.checkPerfect(3)
		t.Logf("lines exported by each worker: %s", strings.Join(strings.Fields(l.run("wc -l < items-0.jsonl; wc -l < items-1.jsonl; wc -l < items-2.jsonl")), ", "))
	})

	t.Run("one_worker_sigkilled_halfway", func(t *testing.T) {
		t.Parallel()
		url := url + "-kill:" + split
		l := newRedisLoop(t, bin, url, site)
		fr, err := frontier.Open(context.Background(), url, frontier.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer fr.Close()
		const window = 32 // pipeline's --window
		ws := l.startWorkers(3, machines)
		victim := ws[1]

		// Halfway, and the victim holding requests (it may have started
		// last on a busy machine).
		half := l.site.Stats().Expected / 2
		l.waitRequests(half, time.Minute)
		held := 0
		for deadline := time.Now().Add(30 * time.Second); held == 0 && time.Now().Before(deadline); {
			held = heldBy(t, fr, victim.cmd.Process.Pid, machines)
			if held == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		if held == 0 {
			t.Fatalf("worker 2 held no request by %d requests of %d", l.site.Stats().Requests, l.site.Stats().Expected)
		}
		before := l.site.Stats().Requests
		syscall.Kill(-victim.cmd.Process.Pid, syscall.SIGKILL)
		killed := time.Now()
		<-victim.done
		t.Logf("worker 2 (process group %d) killed at %d requests of a perfect crawl's %d, holding %d", victim.cmd.Process.Pid, before, l.site.Stats().Expected, held)

		for i, w := range ws {
			if i != 1 {
				l.waitWorker(i, w)
			}
		}
		took := time.Since(killed)
		dups := l.checkItems() // every product exported, or the test fails
		st := l.site.Stats()
		extra := st.Duplicates - max(st.RobotsTxt-1, 0)
		stats, err := fr.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("the two others ended %v after the kill: %d pages fetched twice, %d products exported twice; frontier: %d abandoned, %d consumers died",
			took.Round(100*time.Millisecond), extra, dups, stats[frontier.StatAbandoned], stats[frontier.StatConsumerDied])
		if stats[frontier.StatConsumerDied] < 1 || stats[frontier.StatAbandoned] < 1 {
			t.Errorf("the dead worker's requests did not come back through its death: %v", stats)
		}
		if extra > window || dups > window {
			t.Errorf("%d pages fetched twice and %d products exported twice, more than the dead worker's window of %d", extra, dups, window)
		}
		if st.EarlyRetries != 0 {
			t.Errorf("%d retries before their Retry-After", st.EarlyRetries)
		}
		if machines {
			// Another machine's consumer is dead only when it has not
			// beaten for the timeout; its last beat (a pop counts) was at
			// most one beat interval before the kill.
			if least := frontier.DefaultConsumerTimeout - frontier.DefaultConsumerTimeout/6; took < least {
				t.Errorf("the crawl ended %v after the kill: the dead worker's requests came back before its heartbeat could time out (%v)", took, least)
			}
		}
	})
}

// worker is one crawl loop started by startWorkers.
type worker struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{} // closed when cmd.Wait returned, err set
	err    error
}

// startWorkers starts n crawl loops (pipeline(i), i from 0), each in a
// process group of its own; with machines, each under a host name of its
// own, worker-(i+1), in a user and UTS namespace (unshare(1)): the other
// workers' pops then cannot see its processes and know of its death only
// from its heartbeats, as with a loop on another machine.
func (l *loop) startWorkers(n int, machines bool) []*worker {
	l.t.Helper()
	var ws []*worker
	for i := range n {
		c := l.cmd(l.script(i))
		if machines {
			c.Args = []string{"unshare", "--user", "--map-root-user", "--uts", "bash", "-c",
				fmt.Sprintf("echo worker-%d > /proc/sys/kernel/hostname || exit 1\n%s", i+1, l.script(i))}
			path, err := exec.LookPath("unshare")
			if err != nil {
				l.t.Fatal(err)
			}
			c.Path = path
		}
		w := &worker{cmd: c, stderr: &lockedBuffer{}, done: make(chan struct{})}
		c.Stderr = w.stderr
		if err := c.Start(); err != nil {
			l.t.Fatal(err)
		}
		go func() { w.err = c.Wait(); close(w.done) }()
		l.t.Cleanup(func() {
			select {
			case <-w.done:
			default: // a test that failed midway: kill its workers
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				<-w.done
			}
		})
		ws = append(ws, w)
	}
	return ws
}

// waitWorker waits for worker i to end by itself (within 2 minutes) and
// checks that every process of it exited 0.
func (l *loop) waitWorker(i int, w *worker) {
	l.t.Helper()
	select {
	case <-w.done:
		if w.err != nil {
			l.t.Fatalf("worker %d: %v\n%s", i+1, w.err, w.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		l.t.Fatalf("worker %d did not end by itself:\n%s", i+1, w.stderr.String())
	}
	if st := l.status(i); st != "0 0 0 0 0" {
		l.t.Errorf("worker %d: exit statuses %q, want all 0; stderr:\n%s", i+1, st, w.stderr.String())
	}
}

// heldBy is how many requests the consumer of worker 2 holds: the pop
// among the consumers whose process is in the process group pgid (with
// machines, the one on host worker-2).
func heldBy(t *testing.T, fr frontier.Frontier, pgid int, machines bool) int {
	t.Helper()
	cs, err := fr.Consumers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if machines && c.Host == "worker-2" {
			return c.Held
		}
		if !machines {
			if g, err := syscall.Getpgid(c.PID); err == nil && g == pgid {
				return c.Held
			}
		}
	}
	return 0
}

// ownHostNames reports whether a process can be given a host name of its
// own here (unshare --user --map-root-user --uts: unprivileged user
// namespaces allowed). Where it cannot, the workers share this machine's
// name, and a dead worker is found by its process being gone.
func ownHostNames(t *testing.T) bool {
	out, err := exec.Command("unshare", "--user", "--map-root-user", "--uts", "sh", "-c",
		"echo worker-0 > /proc/sys/kernel/hostname && cat /proc/sys/kernel/hostname").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "worker-0" {
		t.Logf("the workers share this machine's host name (no user namespaces here: %v %s): a dead worker is found by its process being gone, not by its heartbeats", err, strings.TrimSpace(string(out)))
		return false
	}
	return true
}
