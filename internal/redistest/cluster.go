package redistest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// CliBinary is the redis-cli program StartCluster runs to create the
// cluster (redis-cli --cluster create); the environment variable REDIS_CLI
// overrides it. Debian's redis-tools provides it (redis-server depends on
// it).
var CliBinary = "redis-cli"

// ClusterOptions shape the cluster NewCluster starts.
type ClusterOptions struct {
	// Replicas is the number of replicas of each of the three masters
	// (0: masters only).
	Replicas int
}

// Cluster is a running Redis Cluster of three masters on loopback.
type Cluster struct {
	// URL names the cluster as crawlutils does, every node a seed:
	// "redis+cluster://127.0.0.1:P1,127.0.0.1:P2,…".
	URL string
	// Addrs are the nodes' addresses ("127.0.0.1:PORT"), masters first.
	Addrs []string

	procs map[string]*proc // by address
}

// StartCluster starts a Redis Cluster of three masters for t and returns
// its URL, "redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3". See
// NewCluster.
func StartCluster(t testing.TB) string {
	t.Helper()
	return NewCluster(t, ClusterOptions{}).URL
}

// NewCluster starts three redis-servers with cluster mode on, on free
// loopback ports (client and cluster bus), plus o.Replicas replicas of
// each; joins them with redis-cli --cluster create, which assigns the
// 16384 slots among the masters; and waits until every node reports
// cluster_state:ok, all slots assigned and every node known. Nothing is
// kept on disk but each node's cluster configuration, in a directory of
// its own that t.Cleanup removes after stopping the servers (showing
// their logs if the test failed). Like Start, it skips the test when
// redis-server or redis-cli is not installed, or fails it when the
// environment variable CI is set. It takes a few seconds (redis-cli waits
// for the nodes to agree): tests usually share one cluster and keep apart
// by key prefix.
func NewCluster(t testing.TB, o ClusterOptions) *Cluster {
	t.Helper()
	server := need(t, Binary, "REDIS_SERVER", "redis-server")
	cli := need(t, CliBinary, "REDIS_CLI", "redis-tools")
	dir, err := os.MkdirTemp("", "redistest-cluster-")
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	var procs []*proc
	c := &Cluster{procs: map[string]*proc{}}
	t.Cleanup(func() {
		for _, p := range procs {
			if q := c.procs[p.addr]; q != nil {
				p = q // restarted
			}
			p.stop(t)
		}
		os.RemoveAll(dir)
	})
	n := 3 * (1 + o.Replicas)
	for len(procs) < n {
		p, err := launchNode(server, dir)
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		procs = append(procs, p)
	}
	for _, p := range procs {
		c.Addrs = append(c.Addrs, p.addr)
		c.procs[p.addr] = p
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(o.Replicas), "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: %s %s: %v\n%s", cli, strings.Join(args, " "), err, tail(out))
	}
	if err := waitClusterOK(c.Addrs, 30*time.Second); err != nil {
		t.Fatalf("redistest: %v", err)
	}
	c.Addrs = mastersFirst(c.Addrs)
	if o.Replicas > 0 {
		// A replica that takes over has only what its master streamed
		// to it: wait until every master streams to its replicas.
		if err := waitReplicasOnline(c.Addrs[:3], o.Replicas, 30*time.Second); err != nil {
			t.Fatalf("redistest: %v", err)
		}
	}
	c.URL = "redis+cluster://" + strings.Join(c.Addrs, ",")
	return c
}

// launchNode starts one cluster node on two free ports, retrying when a
// port was taken in between.
func launchNode(server, dir string) (*proc, error) {
	var lastErr error
	for range 5 {
		ports, err := freePorts(2)
		if err != nil {
			return nil, err
		}
		args := []string{
			"--cluster-enabled", "yes",
			"--cluster-port", strconv.Itoa(ports[1]),
			"--cluster-config-file", fmt.Sprintf("nodes-%d.conf", ports[0]),
			"--cluster-node-timeout", "5000",
			// A replica's first sync through a file, at once: with
			// Redis 7.0's diskless sync a replica was seen online with
			// nothing streamed to it, minutes after its sync.
			"--repl-diskless-sync", "no",
		}
		p, err := launch(server, dir, ports[0], args...)
		if err == nil {
			p.relaunch = func() (*proc, error) { return launch(server, dir, ports[0], args...) }
			return p, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// waitClusterOK waits until every node says cluster_state:ok, with all
// 16384 slots assigned and all the nodes known.
func waitClusterOK(addrs []string, within time.Duration) error {
	deadline := time.Now().Add(within)
	want := []string{"cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:" + strconv.Itoa(len(addrs))}
	for {
		last, ok := "", true
		for _, a := range addrs {
			info, err := Do(a, "CLUSTER", "INFO")
			if err != nil {
				last, ok = fmt.Sprintf("%s: %v", a, err), false
				break
			}
			for _, w := range want {
				if !strings.Contains(info, w+"\r\n") {
					last, ok = fmt.Sprintf("%s:\n%s", a, info), false
				}
			}
			if !ok {
				break
			}
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cluster is not ok after %v; CLUSTER INFO of %s", within, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitReplicasOnline waits until each master in masters streams its
// writes to n replicas (INFO replication: n lines "slaveI:…,state=online").
// After a diskless full sync a master streams to a replica only once the
// replica has acknowledged it (within a second): a write before that
// reaches no replica, and a failover then loses it.
func waitReplicasOnline(masters []string, n int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for _, a := range masters {
		for {
			info, err := Do(a, "INFO", "replication")
			if err == nil && strings.Count(info, "state=online") >= n {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("master %s does not stream to %d replicas after %v: %v\n%s", a, n, within, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// mastersFirst orders addrs masters first (by ROLE), keeping their order
// otherwise.
func mastersFirst(addrs []string) []string {
	var masters, replicas []string
	for _, a := range addrs {
		if role, err := Do(a, "ROLE"); err == nil && role == "master" {
			masters = append(masters, a)
		} else {
			replicas = append(replicas, a)
		}
	}
	return append(masters, replicas...)
}

// Do sends one command to the Redis server at addr and returns its reply:
// a simple or bulk string, an integer in decimal, or the first element of
// an array (enough for ROLE, CLUSTER INFO, CLUSTER KEYSLOT, CLUSTER
// DELSLOTS). An error reply is returned as an error.
func Do(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(c, b.String()); err != nil {
		return "", err
	}
	return readReply(bufio.NewReader(c))
}

func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("%s", line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n <= 0 {
			return "", err
		}
		return readReply(r) // the rest is left unread: the connection is closed
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// freePorts returns n distinct free loopback ports.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// shared is the cluster SharedCluster started, if any.
var shared struct {
	mu      sync.Mutex
	started bool
	url     string
	cleanup []func()
}

// SharedCluster returns the URL of a cluster of three masters shared by
// every test of the test binary that asks: the first call starts it
// (NewCluster), the others return it, and StopShared, which the package's
// TestMain calls after m.Run, stops it. Tests keep apart by key prefix. A
// test that calls it is skipped, or failed under CI, as NewCluster says;
// if the cluster could not start, every test that asks fails.
func SharedCluster(t testing.TB) string {
	t.Helper()
	need(t, Binary, "REDIS_SERVER", "redis-server")
	need(t, CliBinary, "REDIS_CLI", "redis-tools")
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.started {
		shared.started = true
		shared.url = NewCluster(processTB{t}, ClusterOptions{}).URL // on failure t stops here
	}
	if shared.url == "" {
		t.Fatal("redistest: the shared cluster did not start (see the first test that asked)")
	}
	return shared.url
}

// StopShared stops the cluster SharedCluster started, if any.
func StopShared() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	for i := len(shared.cleanup) - 1; i >= 0; i-- {
		shared.cleanup[i]()
	}
	shared.cleanup, shared.started, shared.url = nil, false, ""
}

// processTB is the test that starts the shared cluster, but for its
// cleanups, which wait for StopShared.
type processTB struct{ testing.TB }

func (p processTB) Cleanup(fn func()) { shared.cleanup = append(shared.cleanup, fn) }

// Failed is false: the test that started the shared cluster has ended
// when StopShared runs, and may no longer log.
func (p processTB) Failed() bool { return false }
