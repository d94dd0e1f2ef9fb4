package storage

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

func TestTakeWait(t *testing.T) {
	tests := []struct {
		query   string
		want    replication
		rest    string
		wantErr string
	}{
		{"", replication{0, DefaultWaitTimeout}, "", ""},
		{"wait=1", replication{1, DefaultWaitTimeout}, "", ""},
		{"wait=2&wait_timeout=250ms&dial_timeout=1s", replication{2, 250 * time.Millisecond}, "dial_timeout=1s", ""},
		{"wait=0", replication{0, DefaultWaitTimeout}, "", ""},
		{"wait=-1", replication{}, "", "wait="},
		{"wait=one", replication{}, "", "wait="},
		{"wait=1&wait_timeout=0s", replication{}, "", "wait_timeout="},
		{"wait=1&wait_timeout=soon", replication{}, "", "wait_timeout="},
	}
	for _, tt := range tests {
		u := &url.URL{RawQuery: tt.query}
		got, err := takeWait(u)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("takeWait(%q) error = %v, want one naming %s", tt.query, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want || u.RawQuery != tt.rest {
			t.Errorf("takeWait(%q) = %+v, %v, rest %q; want %+v, rest %q", tt.query, got, err, u.RawQuery, tt.want, tt.rest)
		}
	}
}

func TestDialRedisRejectsABadWait(t *testing.T) {
	for _, u := range []string{"redis://127.0.0.1:1/0?wait=x", "redis+cluster://127.0.0.1:1?wait=1&wait_timeout=-1s"} {
		_, err := DialRedis(context.Background(), u)
		if err == nil || !strings.Contains(err.Error(), "bad Redis URL") || !strings.Contains(err.Error(), "wait") {
			t.Errorf("DialRedis(%q) = %v, want a bad-URL error naming wait", u, err)
		}
	}
}

var setScript = redis.NewScript(`redis.call('SET', KEYS[1], ARGV[1]) return 1`)

// With wait=1 a write returns once the replica has it; while the replica
// cannot confirm it (paused), the call is retried, and fails only when
// the retry time runs out, saying why.
func TestWaitForAReplica(t *testing.T) {
	master := redistest.StartServer(t, "--repl-diskless-sync-delay", "0")
	replica := redistest.StartReplica(t, master)
	ctx := context.Background()
	c, err := DialRedis(ctx, master.URL()+"?wait=1&wait_timeout=100ms")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.retry = 2 * time.Second
	var warnings []string
	oldWarn := Warnf
	Warnf = func(format string, a ...any) { warnings = append(warnings, format) }
	defer func() { Warnf = oldWarn }()

	set := func(v string) error {
		return c.Do(ctx, func(ctx context.Context) error { return c.Script(ctx, setScript, []string{"k"}, v).Err() })
	}
	if err := set("one"); err != nil {
		t.Fatal(err)
	}
	if got, err := redistest.Do(replica.Addr(), "GET", "k"); err != nil || got != "one" {
		t.Fatalf("replica has k = %q, %v; want one as soon as the write returned", got, err)
	}

	// Paused, the replica confirms nothing: the write is retried until it
	// does (it is resumed meanwhile), then returns.
	replica.Pause()
	resumed := time.AfterFunc(600*time.Millisecond, replica.Resume)
	defer resumed.Stop()
	start := time.Now()
	if err := set("two"); err != nil {
		t.Fatalf("write while the replica was paused for 0.6 s: %v", err)
	}
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("the write returned after %v, before the replica was resumed (0.6 s)", d)
	}
	if got, _ := redistest.Do(replica.Addr(), "GET", "k"); got != "two" {
		t.Errorf("replica has k = %q after the write returned, want two", got)
	}
	if len(warnings) == 0 {
		t.Errorf("no warning while the write waited for the replica")
	}

	// Paused for longer than the retry time: the call fails, naming the
	// option, and errors.Is finds ErrNotReplicated.
	replica.Pause()
	defer replica.Resume()
	err = set("three")
	if !errors.Is(err, ErrNotReplicated) || !strings.Contains(err.Error(), "wait=1") {
		t.Fatalf("write with the replica paused 2 s: %v; want ErrNotReplicated naming wait=1", err)
	}
}

// Without wait= nothing waits: a paused replica does not hold writes up.
func TestNoWaitByDefault(t *testing.T) {
	master := redistest.StartServer(t, "--repl-diskless-sync-delay", "0")
	replica := redistest.StartReplica(t, master)
	ctx := context.Background()
	c, err := DialRedis(ctx, master.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	replica.Pause()
	defer replica.Resume()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := c.Script(ctx, setScript, []string{"k"}, "v").Err(); err != nil {
		t.Fatal(err)
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{context.Canceled, false},
		{redis.ErrClosed, false},
		{errors.New("ERR unknown command"), false},
		{errors.New("LOADING Redis is loading the dataset in memory"), true},
		{errors.New("CLUSTERDOWN Hash slot not served"), true},
		{errors.New("MOVED 3740 127.0.0.1:7001"), true},
		{errors.New("NOREPLICAS Not enough good replicas to write."), true},
		{fmt.Errorf("%w: 0 of the 1 replicas", ErrNotReplicated), true},
		{errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), true},
	}
	for _, tt := range tests {
		if got := Retryable(tt.err); got != tt.want {
			t.Errorf("Retryable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// How long a call is retried comes from the environment DialRedisEnv is
// given (a command's own), not the process's.
func TestRetryFromGivenEnvironment(t *testing.T) {
	url := redistest.Start(t)
	ctx := context.Background()
	for _, tt := range []struct {
		env     map[string]string
		want    time.Duration
		wantErr bool
	}{
		{nil, DefaultRedisRetry, false},
		{map[string]string{RedisRetryEnv: "0"}, 0, false},
		{map[string]string{RedisRetryEnv: "5m"}, 5 * time.Minute, false},
		{map[string]string{RedisRetryEnv: "soon"}, 0, true},
	} {
		c, err := DialRedisEnv(ctx, url, func(k string) string { return tt.env[k] })
		if tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), RedisRetryEnv) {
				t.Errorf("%v: error %v, want one naming %s", tt.env, err, RedisRetryEnv)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if c.retry != tt.want {
			t.Errorf("%v: retry %v, want %v", tt.env, c.retry, tt.want)
		}
		c.Close()
	}
}
