package frontier

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Consumers on Redis: F consumers and F beats register them, F owner and
// F held:CID say who holds what (see redis_lua.go). Whether a consumer
// missed its heartbeats is judged by the scripts, atomically with the
// beats; whether its process is gone only Go can tell (goneConsumers).

// join registers consumer c under its ID in the shard.
func (r *redisShard) join(ctx context.Context, c Consumer, now time.Time) error {
	return r.fail("join", r.run(ctx, joinScript, r.prefix, now.UnixMilli(), c.ID, consumerJSON(c)).Err())
}

// beat is Frontier.Beat on the shard: it returns what c holds here.
func (r *redisShard) beat(ctx context.Context, c Consumer, lease time.Duration, now time.Time) (int, error) {
	n, err := r.run(ctx, beatScript, r.prefix, now.UnixMilli(), c.ID, consumerJSON(c), now.Add(lease).UnixMilli()).Int64()
	if err != nil {
		return 0, r.fail("beat", err)
	}
	return int(n), nil
}

// leave is Frontier.Leave on the shard.
func (r *redisShard) leave(ctx context.Context, c Consumer, now time.Time) error {
	err := r.run(ctx, leaveScript, r.prefix, now.UnixMilli(), c.ID, r.opts.maxAbandons()).Err()
	return r.fail("leave", err)
}

// consumerJSON is what F consumers holds of c: where it runs.
func consumerJSON(c Consumer) string {
	b, _ := json.Marshal(struct {
		Host string `json:"host"`
		PID  int    `json:"pid"`
		Boot string `json:"boot,omitempty"`
	}{c.Host, c.PID, c.Boot})
	return string(b)
}

// beatCutoff is the first heartbeat time (Unix ms) of a consumer still
// alive at now: one whose last beat is earlier has gone Options.ConsumerTimeout
// without beating (Options.timedOut, to the millisecond).
func (r *redisShard) beatCutoff(now time.Time) int64 {
	t := now.Add(-r.opts.consumerTimeout())
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++ // beat < t for a whole ms beat means beat < ceil(t)
	}
	return ms
}

// goneConsumers returns the ids of the registered consumers, except self,
// that ran on this machine and whose process is gone (processGone). Lua
// cannot see processes, so Go looks, at the cost of a round trip before
// the script: unless force, at most once per processCheckEvery of now.
// Heartbeat timeouts are left to the scripts, which judge them atomically.
func (r *redisShard) goneConsumers(ctx context.Context, self string, now time.Time, force bool) ([]string, error) {
	if machine().Boot == "" {
		return nil, nil // no boot id: no consumer can be known to be on this machine
	}
	if !r.procs.due(now, force) {
		return nil, nil
	}
	var all map[string]string
	err := r.conn.Do(ctx, func(ctx context.Context) (err error) {
		all, err = r.client.HGetAll(ctx, r.prefix+"f:consumers").Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	var gone []string
	for id, info := range all {
		var c Consumer
		if id == self || json.Unmarshal([]byte(info), &c) != nil {
			continue
		}
		if processGone(c) {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	return gone, nil
}
