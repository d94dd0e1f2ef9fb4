package frontier_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/cdedupe"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cqueue"
	"github.com/crawlutils/crawlutils/internal/crawl"
	"github.com/crawlutils/crawlutils/internal/cthrottle"
	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// runTool runs a command in process, as its main would.
// cqueueCommand is cqueue as its binary is, with cqueue crawl.
func cqueueCommand() *cli.Command { return cqueue.Command(crawl.Command()) }

func runTool(cmd func() *cli.Command, stdin string, args ...string) (code int, stdout, stderr string) {
	return runToolEnv(cmd, nil, stdin, args...)
}

// runToolEnv is runTool with the environment vars (and no other).
func runToolEnv(cmd func() *cli.Command, vars map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Execute(context.Background(), cmd(), args, cli.NewEnv(strings.NewReader(stdin), &out, &errb).WithEnv(vars))
	return code, out.String(), errb.String()
}

// TestRedisClusterSlotNotServed: when the slot of the crawl's keys is
// served by no node (a cluster set up with part of its slots, or after
// CLUSTER DELSLOTS), cqueue, cdedupe and cthrottle each fail when they
// open, exit 1, with a message naming the tool, the cluster and the slot;
// nothing they store is touched, and once the slot is served again
// the crawl is all there.
func TestRedisClusterSlotNotServed(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: starts a cluster of its own")
	}
	cl := redistest.NewCluster(t, redistest.ClusterOptions{})
	url := cl.URL
	if code, _, stderr := runTool(cqueueCommand, "http://a.test/1\nhttp://a.test/2\nhttp://b.test/3\n", "push", "-q", "--redis", url); code != 0 {
		t.Fatalf("push: exit %d\n%s", code, stderr)
	}

	// The slot of every key of the default prefix, and its master.
	slot := storage.RedisSlot("{" + storage.DefaultPrefix + "}")
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs})
	defer cc.Close()
	owner, err := cc.MasterForKey(context.Background(), "{"+storage.DefaultPrefix+"}")
	if err != nil {
		t.Fatal(err)
	}
	ownerAddr := owner.Options().Addr
	// Unassign it: the owner first, so that no node claims it again.
	addrs := append([]string{ownerAddr}, without(cl.Addrs, ownerAddr)...)
	for _, a := range addrs {
		if _, err := redistest.Do(a, "CLUSTER", "DELSLOTS", fmt.Sprint(slot)); err != nil {
			t.Fatalf("%s: CLUSTER DELSLOTS %d: %v", a, slot, err)
		}
	}
	waitState(t, cl.Addrs, "cluster_state:fail")

	wantMsg := func(tool string) *regexp.Regexp {
		return regexp.MustCompile(`^` + tool + `: .*Redis Cluster at ` + regexp.QuoteMeta(strings.Join(cl.Addrs, ",")) +
			`: slot ` + fmt.Sprint(slot) + ` \(keys \{crawlutils:\}…\) cannot be used: CLUSTERDOWN`)
	}
	for _, c := range []struct {
		tool  string
		run   toolRun
		stdin string
		args  []string
	}{
		{"cqueue", cqueueCommand, "http://c.test/4\n", []string{"push", "--redis", url}},
		{"cqueue", cqueueCommand, "", []string{"pop", "--redis", url, "--max", "1"}},
		{"cqueue", cqueueCommand, "", []string{"info", "--redis", url}},
		{"cdedupe", cdedupe.Command, "http://c.test/4\n", []string{"--redis", url}},
		{"cthrottle", cthrottle.Command, "http://c.test/4\n", []string{"--redis", url, "--rate", "1/s"}},
	} {
		// The message first (cdedupe and cthrottle follow it with their
		// summary of nothing done).
		code, stdout, stderr := runTool(c.run, c.stdin, c.args...)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 1 || stdout != "" || !wantMsg(c.tool).MatchString(first) {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 1, a first line matching %s", c.tool, strings.Join(c.args, " "), code, stdout, stderr, wantMsg(c.tool))
		}
	}

	// Served again: the crawl is all there.
	if _, err := redistest.Do(ownerAddr, "CLUSTER", "ADDSLOTS", fmt.Sprint(slot)); err != nil {
		t.Fatalf("CLUSTER ADDSLOTS %d: %v", slot, err)
	}
	waitState(t, cl.Addrs, "cluster_state:ok")
	code, stdout, stderr := runTool(cqueueCommand, "", "pop", "-q", "--redis", url, "--max", "10")
	if code != 0 || strings.Count(stdout, "\n") != 3 {
		t.Fatalf("pop after the slot came back: exit %d, %d requests\n%s%s", code, strings.Count(stdout, "\n"), stdout, stderr)
	}
}

func without(list []string, x string) []string {
	var out []string
	for _, s := range list {
		if s != x {
			out = append(out, s)
		}
	}
	return out
}

// waitState waits until every node's CLUSTER INFO has line.
func waitState(t *testing.T, addrs []string, line string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range addrs {
		for {
			info, err := redistest.Do(a, "CLUSTER", "INFO")
			if err == nil && strings.Contains(info, line+"\r\n") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no %s after 30s: %v\n%s", a, line, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
