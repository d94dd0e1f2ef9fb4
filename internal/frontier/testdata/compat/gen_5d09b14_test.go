package frontier

// This file generates redis-unsplit-5d09b14.json, the state an unsplit
// Redis frontier of commit 5d09b14 (before the one Redis frontier with
// shards=1) leaves, and that version's answers to a few calls on it. It
// is run in a checkout of that commit, not here (testdata is not built):
//
//	git archive 5d09b14 | tar -x -C /tmp/old
//	cp testdata/compat/gen_5d09b14_test.go /tmp/old/internal/frontier/
//	cd /tmp/old/internal/frontier && CRAWLUTILS_INTEGRATION=1 \
//	  COMPAT_OUT=$PWD/redis-unsplit-5d09b14.json go test -run TestGenCompat .
//
// TestRedisReadsUnsplitFromBefore (redis_compat_test.go) loads the keys
// into a fresh server and asks the same calls of today's frontier.

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

func TestGenCompat(t *testing.T) {
	out := os.Getenv("COMPAT_OUT")
	if out == "" {
		t.Skip("COMPAT_OUT not set")
	}
	url := redistest.Start(t)
	f, err := openRedis(ctx, url, Options{Prefix: "old:"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inFlight := compatHistory(t, f)
	keys := compatKeys(t, f, "old:")
	answers := compatAnswers(t, f, inFlight)
	b, err := json.MarshalIndent(map[string]any{"keys": keys, "in_flight": inFlight, "answers": answers}, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// enc is s as the fixture keeps it: as it is, or "base64:" and its
// bytes in base64 when it is not UTF-8 (a fingerprint in a seen set) or
// starts so.
func enc(s string) string {
	if utf8.ValidString(s) && !strings.HasPrefix(s, "base64:") {
		return s
	}
	return "base64:" + base64.StdEncoding.EncodeToString([]byte(s))
}

// compatKey is one key as the fixture keeps it.
type compatKey struct {
	Key   string            `json:"key"`
	Type  string            `json:"type"`
	Hash  map[string]string `json:"hash,omitempty"`
	Set   []string          `json:"set,omitempty"`
	ZSet  [][2]any          `json:"zset,omitempty"`
	Value string            `json:"value,omitempty"`
}

func compatKeys(t *testing.T, f *Redis, prefix string) []compatKey {
	keys, err := f.client.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	var out []compatKey
	for _, k := range keys {
		if strings.Contains(k, ":f:replay:") {
			continue // an answer kept two minutes for a retry
		}
		typ, _ := f.client.Type(ctx, k).Result()
		ck := compatKey{Key: k, Type: typ}
		switch typ {
		case "hash":
			h, _ := f.client.HGetAll(ctx, k).Result()
			ck.Hash = map[string]string{}
			for field, v := range h {
				ck.Hash[enc(field)] = enc(v)
			}
		case "set":
			ms, _ := f.client.SMembers(ctx, k).Result()
			for _, m := range ms {
				ck.Set = append(ck.Set, enc(m))
			}
			sort.Strings(ck.Set)
		case "zset":
			zs, _ := f.client.ZRangeWithScores(ctx, k, 0, -1).Result()
			for _, z := range zs {
				ck.ZSet = append(ck.ZSet, [2]any{enc(z.Member.(string)), z.Score})
			}
		case "string":
			v, _ := f.client.Get(ctx, k).Result()
			ck.Value = enc(v)
		default:
			t.Fatalf("key %s of type %s", k, typ)
		}
		out = append(out, ck)
	}
	return out
}
