package frontier

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// commandLog is a go-redis hook that records the commands a client
// sends: each one, alone or in a pipeline, a round trip's worth.
type commandLog struct {
	mu   sync.Mutex
	sent []string
}

func (l *commandLog) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l *commandLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		l.add(cmd)
		return next(ctx, cmd)
	}
}

func (l *commandLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			l.add(c)
		}
		return next(ctx, cmds)
	}
}

func (l *commandLog) add(c redis.Cmder) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, c.Name())
}

// take returns the commands sent since the last take.
func (l *commandLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sent
	l.sent = nil
	return out
}

var _ redis.Hook = (*commandLog)(nil)

// TestRedisOneShardOneRoundTrip: a frontier of one shard (no shards= in
// the URL) adds nothing to its scripts: a push, a pop (one-off or a
// consumer's, its look for gone processes done for the second), an ack
// and a beat each send one command, the script (EVALSHA; counts one
// HMGET), as the
// unsplit frontier did before there was one Redis frontier.
func TestRedisOneShardOneRoundTrip(t *testing.T) {
	f := openTestRedis(t, redistest.Start(t), Options{})
	log := &commandLog{}
	f.conn.Client.AddHook(log)
	now := t0
	c := join(t, f, elsewhere, now)
	var es []Entry
	for i := range 20 {
		es = append(es, req(t, fmt.Sprintf("http://h%d.test/1", i%4)))
	}
	// Once, so every script is loaded and this second's process look done.
	ls := pop(t, f, 1, now)
	push(t, f, now, es[:1]...)
	f.Ack(ctx, leases(ls), now)
	popAs(t, f, c, 1, 10, now)
	f.Beat(ctx, c, time.Minute, now)
	f.Stop(ctx, "none", now)
	log.take()

	one := func(what, want string, fn func()) {
		t.Helper()
		fn()
		if got := log.take(); len(got) != 1 || got[0] != want {
			t.Errorf("%s sent %v, want one %s", what, got, want)
		}
	}
	one("push", "evalsha", func() { push(t, f, now, es[1:]...) })
	var popped []Leased
	one("pop", "evalsha", func() { popped = pop(t, f, 5, now) })
	one("ack", "evalsha", func() { f.Ack(ctx, leases(popped), now) })
	one("a consumer's pop", "evalsha", func() { popAs(t, f, c, 5, 10, now) })
	one("beat", "evalsha", func() { f.Beat(ctx, c, time.Minute, now) })
	one("counts", "hmget", func() { counts(t, f) })
	one("stop", "evalsha", func() { f.Stop(ctx, "none", now) })
}
