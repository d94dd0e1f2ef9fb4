package frontier

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// TestRedisReadsUnsplitFromBefore: the keys an unsplit Redis frontier of
// the version before the one Redis frontier (commit 5d09b14, when
// unsplit and split were two types) left in a server, loaded as they
// were, are today's frontier of one shard (the default): it reports what
// that version reported (counts, info, stats, consumers, metadata, run
// lock, every request's state), honours its lease still in flight, and
// goes on with the crawl exactly as that version went on. The fixture and
// that version's answers come from testdata/compat/gen_5d09b14_test.go.
func TestRedisReadsUnsplitFromBefore(t *testing.T) {
	b, err := os.ReadFile("testdata/compat/redis-unsplit-5d09b14.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Keys []struct {
			Key   string            `json:"key"`
			Type  string            `json:"type"`
			Hash  map[string]string `json:"hash"`
			Set   []string          `json:"set"`
			ZSet  [][2]any          `json:"zset"`
			Value string            `json:"value"`
		} `json:"keys"`
		InFlight []string          `json:"in_flight"`
		Answers  map[string]string `json:"answers"`
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	url := redistest.Start(t)
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opts)
	defer rc.Close()
	// dec undoes the fixture's base64: for strings that are not UTF-8.
	dec := func(s string) string {
		b64, ok := strings.CutPrefix(s, "base64:")
		if !ok {
			return s
		}
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatalf("fixture: %q: %v", s, err)
		}
		return string(b)
	}
	pipe := rc.Pipeline()
	for _, k := range fx.Keys {
		switch k.Type {
		case "hash":
			for field, v := range k.Hash {
				pipe.HSet(ctx, k.Key, dec(field), dec(v))
			}
		case "set":
			for _, m := range k.Set {
				pipe.SAdd(ctx, k.Key, dec(m))
			}
		case "zset":
			for _, z := range k.ZSet {
				pipe.ZAdd(ctx, k.Key, redis.Z{Member: dec(z[0].(string)), Score: z[1].(float64)})
			}
		case "string":
			pipe.Set(ctx, k.Key, dec(k.Value), 0)
		default:
			t.Fatalf("fixture key %s of type %s", k.Key, k.Type)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}

	f, err := OpenRedis(ctx, url, Options{Prefix: "old:"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Shards() != 1 || f.shards[0].prefix != "old:" || f.control != f.shards[0] {
		t.Fatalf("opened %d shards under %q", f.Shards(), f.shards[0].prefix)
	}
	// Changed on purpose since the version before: a crawl's run lock is
	// one a machine (lockKey, 2026-12-07), so a run on another machine
	// ("other") takes its own and joins the crawl, and today's lock is
	// kept under run_lock@HOST.
	answers := maps.Clone(fx.Answers)
	answers["lock by another"] = "other 2 boot true"
	got := compatAnswers(t, f, fx.InFlight)
	for _, k := range slices.Sorted(maps.Keys(answers)) {
		if got[k] != answers[k] {
			t.Errorf("%s:\n got %s\nwant %s (the version before)", k, got[k], answers[k])
		}
	}
	answers["crawl meta"] = strings.Replace(answers["crawl meta"], "run_lock:", "run_lock@host:", 1)
	if n, err := rc.Exists(ctx, "old:shards").Result(); err != nil || n != 0 {
		t.Errorf("the unsplit prefix got a split recorded (old:shards: %d, %v)", n, err)
	}

	// The same history, made today, leaves the same keys (but for the
	// consumer's id, drawn at random) and gets the same answers.
	today := openTestRedis(t, url, Options{})
	inFlight := compatHistory(t, today)
	if len(inFlight) != 1 || len(inFlight[0]) != len(fx.InFlight[0]) {
		t.Errorf("in flight today %q, before %q: not the same lease format", inFlight, fx.InFlight)
	}
	var before, after []string
	for _, k := range fx.Keys {
		before = append(before, strings.TrimPrefix(k.Key, "old:"))
	}
	keys, err := rc.Keys(ctx, today.prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.Contains(k, ":f:replay:") {
			after = append(after, strings.TrimPrefix(k, today.prefix))
		}
	}
	held := func(k string) bool { return strings.HasPrefix(k, "f:held") } // f:held:CID, f:heldq:CID
	before, after = slices.DeleteFunc(before, held), slices.DeleteFunc(after, held)
	slices.Sort(before)
	slices.Sort(after)
	if !slices.Equal(before, after) {
		t.Errorf("keys made today %v\nbefore %v", after, before)
	}
	got = compatAnswers(t, today, inFlight)
	for _, k := range slices.Sorted(maps.Keys(answers)) {
		if k != "consumers" && got[k] != answers[k] {
			t.Errorf("made today, %s:\n got %s\nwant %s (the version before)", k, got[k], answers[k])
		}
	}
}
