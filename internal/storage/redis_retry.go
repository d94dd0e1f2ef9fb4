package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisRetry is how long a call to Redis is retried while the
// server cannot be reached, unless CRAWLUTILS_REDIS_RETRY says otherwise.
const DefaultRedisRetry = time.Minute

// RedisRetryEnv names the environment variable that sets how long a call
// is retried (a Go duration; 0 turns retrying off).
const RedisRetryEnv = "CRAWLUTILS_REDIS_RETRY"

// How long the first retry waits, and the longest wait between two.
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 2 * time.Second
)

// Warnf prints a warning about the connection on stderr, in the tools'
// format ("cqueue: warning: …"). Tests may replace it.
var Warnf = func(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s: warning: %s\n", filepath.Base(os.Args[0]), fmt.Sprintf(format, a...))
}

// retryFor returns how long to retry: RedisRetryEnv as getenv reads it,
// else DefaultRedisRetry.
func retryFor(getenv func(string) string) (time.Duration, error) {
	v := getenv(RedisRetryEnv)
	if v == "" {
		return DefaultRedisRetry, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: want a duration such as 60s, or 0 for no retries", RedisRetryEnv, v)
	}
	return d, nil
}

// outage is what a connection knows of the server being out of reach:
// when it began (zero: it is reachable), so that one outage is reported
// once, and its end once, whatever the number of calls waiting on it.
type outage struct {
	mu    sync.Mutex
	since time.Time
}

// Do runs call, and while it fails because the server cannot be reached
// (a refused or broken connection, a timeout, a server loading its data,
// a cluster without a master for the slot, failing over, a master that
// min-replicas-to-write keeps from writing), runs it again
// with backoff (100 ms doubling to 2 s, with jitter) for up to
// CRAWLUTILS_REDIS_RETRY (one minute by default), saying on stderr when
// the server went out of reach and when it came back. Any other error,
// or the context's end, is returned at once. call must be safe to run
// twice: every script of ours answers a second run of the same call
// without changing anything, or changes what a first run would have.
//
// A server out of memory (maxmemory reached: OOM) is not retried: its
// error says so and names the server.
func (c *RedisConn) Do(ctx context.Context, call func(ctx context.Context) error) error {
	err := call(ctx)
	if OutOfMemory(err) {
		return c.oom(err)
	}
	if err == nil || !Retryable(err) || c.retry <= 0 {
		return err
	}
	start := time.Now()
	c.down(err)
	wait := retryFirst
	for {
		c.reloadSlots()
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		err = call(ctx)
		switch {
		case err == nil:
			c.up()
			return nil
		case OutOfMemory(err):
			return c.oom(err)
		case !Retryable(err):
			return err
		case time.Since(start) >= c.retry && errors.Is(err, ErrNotReplicated):
			return fmt.Errorf("%s: writes not confirmed by the replicas wait=%d asks for, for %v (%s): %w", c.Where, c.rep.replicas, c.retry, RedisRetryEnv, err)
		case time.Since(start) >= c.retry:
			return fmt.Errorf("%s unreachable for %v (%s): %w", c.Where, c.retry, RedisRetryEnv, err)
		}
		wait = min(2*wait, retryMax)
	}
}

// oom is the error of a call Redis refused for want of memory.
func (c *RedisConn) oom(err error) error {
	return fmt.Errorf("%s is out of memory: maxmemory is reached and it refuses writes, so nothing of this call was stored (give it more memory, or free some): %w", c.Where, err)
}

// reloadSlots makes a cluster client ask the cluster again which node
// serves which slot (in the background): after a failover the slot's new
// master is found at once instead of when the client next refreshes.
func (c *RedisConn) reloadSlots() {
	if cc, ok := c.Client.(*redis.ClusterClient); ok {
		cc.ReloadState(context.Background())
	}
}

func (c *RedisConn) down(err error) {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	if c.out.since.IsZero() {
		c.out.since = time.Now()
		Warnf("%s: %v; retrying for up to %v", c.Where, err, c.retry)
	}
}

func (c *RedisConn) up() {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	if !c.out.since.IsZero() {
		Warnf("%s: reachable again after %v", c.Where, time.Since(c.out.since).Round(100*time.Millisecond))
		c.out.since = time.Time{}
	}
}

// Retryable reports whether err says the server could not be reached or
// could not serve the call for now, so that the same call may succeed
// later.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrClosed) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, ErrNotReplicated) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	msg := err.Error()
	// MOVED reaches here only from a node asked directly (Script with
	// wait=N) that no longer serves the slot: after a failover, before the
	// client has the cluster's new slots (Do asks for them).
	for _, p := range []string{"LOADING ", "CLUSTERDOWN ", "TRYAGAIN ", "MASTERDOWN ", "READONLY ", "BUSY ", "NOREPLICAS ", "MOVED ", "redis: connection pool timeout"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "connection reset")
}
