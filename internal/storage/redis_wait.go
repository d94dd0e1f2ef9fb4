package storage

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Redis URL's wait=N option makes every write of every store wait until
// N replicas of the master that took it have it too (Redis's WAIT), so
// that a failover to one of them cannot lose a write a tool went on from.
// wait_timeout=D (default DefaultWaitTimeout) is how long one WAIT waits;
// a write not on N replicas by then is an outage: the call is run again
// (every script answers its second run as its first, see Do) with backoff,
// and the tool says so on stderr, until the replicas have it or
// CRAWLUTILS_REDIS_RETRY runs out.
const (
	waitOption        = "wait"
	waitTimeoutOption = "wait_timeout"
)

// DefaultWaitTimeout is how long one WAIT waits for the replicas when the
// URL has wait=N and no wait_timeout=.
const DefaultWaitTimeout = time.Second

// ErrNotReplicated is the error of a write that the replicas wait=N asks
// for did not confirm within wait_timeout: the master has it, a failover
// could lose it. RedisConn.Do runs such a call again.
var ErrNotReplicated = errors.New("NOTREPLICATED the write is not on enough replicas yet")

// replication is what a URL's wait= and wait_timeout= ask of writes.
type replication struct {
	replicas int
	timeout  time.Duration
}

// takeWait removes the wait= and wait_timeout= options from u's query and
// returns them.
func takeWait(u *url.URL) (replication, error) {
	q := u.Query()
	rep := replication{timeout: DefaultWaitTimeout}
	if !q.Has(waitOption) && !q.Has(waitTimeoutOption) {
		return rep, nil // the query is left as it was written
	}
	if q.Has(waitOption) {
		n, err := strconv.Atoi(q.Get(waitOption))
		if err != nil || n < 0 {
			return rep, fmt.Errorf("wait=%q: want the number of replicas every write must reach, such as 1", q.Get(waitOption))
		}
		rep.replicas = n
		q.Del(waitOption)
	}
	if q.Has(waitTimeoutOption) {
		d, err := time.ParseDuration(q.Get(waitTimeoutOption))
		if err != nil || d <= 0 {
			return rep, fmt.Errorf("wait_timeout=%q: want a duration such as 1s", q.Get(waitTimeoutOption))
		}
		rep.timeout = d
		q.Del(waitTimeoutOption)
	}
	u.RawQuery = q.Encode()
	return rep, nil
}

// Script runs s with keys and args on the server (on a cluster, the node
// serving keys[0]'s slot). With wait=N in the URL it runs it on one
// connection of its own, followed by WAIT N: the script's error is then
// ErrNotReplicated (wrapped, naming the count) when fewer than N replicas
// confirmed its writes in time. Callers run it inside Do, which retries.
func (c *RedisConn) Script(ctx context.Context, s *redis.Script, keys []string, args ...any) *redis.Cmd {
	if c.rep.replicas == 0 {
		return s.Run(ctx, c.Client, keys, args...)
	}
	node, err := c.Node(ctx, keys[0])
	if err != nil {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(err)
		return cmd
	}
	client, ok := node.(*redis.Client)
	if !ok {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(fmt.Errorf("wait=%d: no single connection to the server (%T)", c.rep.replicas, node))
		return cmd
	}
	conn := client.Conn()
	defer conn.Close()
	cmd := s.Run(ctx, conn, keys, args...)
	if cmd.Err() != nil {
		return cmd
	}
	// WAIT counts the replicas that have every write this connection
	// made, the script's among them.
	n, err := conn.Wait(ctx, c.rep.replicas, c.rep.timeout).Result()
	switch {
	case err != nil:
		cmd.SetErr(err)
	case int(n) < c.rep.replicas:
		cmd.SetErr(fmt.Errorf("%w: %d of the %d replicas wait=%d asks for confirmed it within %v", ErrNotReplicated, n, c.rep.replicas, c.rep.replicas, c.rep.timeout))
	}
	return cmd
}
