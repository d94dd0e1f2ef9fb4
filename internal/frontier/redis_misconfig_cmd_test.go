package frontier_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cdedupe"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cthrottle"
	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// A misconfigured Redis, or a URL that names none, stops each tool that
// stores in Redis when it opens, or at the call Redis refuses: one message
// naming the tool and the server, the exit status of the README's table,
// and nothing stored lost.

type toolRun = func() *cli.Command

// storeTools are cqueue, cdedupe and cthrottle, each run once with the
// Redis URL url (appended to args) and one URL on stdin.
func storeTools(url string) []struct {
	tool  string
	run   toolRun
	stdin string
	args  []string
} {
	return []struct {
		tool  string
		run   toolRun
		stdin string
		args  []string
	}{
		{"cqueue", cqueueCommand, "http://c.test/4\n", []string{"push", "--redis", url}},
		{"cqueue", cqueueCommand, "", []string{"pop", "--max", "1", "--redis", url}},
		{"cqueue", cqueueCommand, "", []string{"info", "--redis", url}},
		{"cdedupe", cdedupe.Command, "http://c.test/4\n", []string{"--redis", url}},
		{"cthrottle", cthrottle.Command, "http://c.test/4\n", []string{"--rate", "1/s", "--redis", url}},
	}
}

// TestRedisURLNotRedis: --redis (or $CRAWLUTILS_REDIS) with something
// other than a Redis URL is a usage error (exit 2) that says what a Redis
// URL looks like, not an SQLite file of that name created in the working
// directory; a redis:// URL at a server that is not Redis fails when the
// tool opens (exit 1), saying so.
func TestRedisURLNotRedis(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, bad := range []string{"http://127.0.0.1:1/", "crawl.db", "redis+sentinel://h:26379", "postgres://u:hunter2@h/db"} {
		for _, c := range storeTools(bad) {
			code, stdout, stderr := runTool(c.run, c.stdin, c.args...)
			want := regexp.MustCompile(`^` + c.tool + `: --redis must be a Redis URL: redis://HOST\[:PORT\]\[/DB\], .* \(got "`)
			if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || stdout != "" || !want.MatchString(first) || strings.Contains(stderr, "hunter2") {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 2 and a first line matching %s", c.tool, strings.Join(c.args, " "), code, stdout, stderr, want)
			}
		}
	}
	// The crawl command too: it must not fall back to OUT.db.
	code, _, stderr := runTool(cqueueCommand, "", "crawl", "seeds.txt", "rules.yml", "out.csv", "--redis", "http://127.0.0.1:1/")
	if code != 2 || !strings.Contains(stderr, "--redis must be a Redis URL") {
		t.Errorf("cqueue crawl --redis http://…: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runToolEnv(cqueueCommand, map[string]string{"CRAWLUTILS_REDIS": "http://127.0.0.1:1/"}, "", "info")
	if code != 2 || !strings.HasPrefix(stderr, `cqueue: $CRAWLUTILS_REDIS must be a Redis URL: `) {
		t.Errorf("$CRAWLUTILS_REDIS=http://…: exit %d, stderr %q", code, stderr)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("files created in the working directory: %v", entries)
	}

	// A server that speaks HTTP.
	hs := httptest.NewServer(http.NotFoundHandler())
	defer hs.Close()
	addr := strings.TrimPrefix(hs.URL, "http://")
	for _, c := range storeTools("redis://" + addr + "/0") {
		code, stdout, stderr := runTool(c.run, c.stdin, c.args...)
		want := regexp.MustCompile(`^` + c.tool + `: .*Redis at ` + regexp.QuoteMeta(addr) + ` \(db 0\) does not answer as Redis does: is it a Redis server\?`)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 1 || stdout != "" || !want.MatchString(first) {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 1 and a first line matching %s", c.tool, strings.Join(c.args, " "), code, stdout, stderr, want)
		}
	}
}

// TestRedisWithoutLua: a Redis whose scripting is disabled (EVAL and
// EVALSHA renamed away, as some hosted Redis do) stops every tool when it
// opens, exit 1, with a message that names the tool, the server and the
// cause; before, the first call failed with Redis's "unknown command
// 'evalsha', with args beginning with: …".
func TestRedisWithoutLua(t *testing.T) {
	srv := redistest.StartServer(t, "--rename-command", "EVAL", "", "--rename-command", "EVALSHA", "")
	url := srv.URL()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0")
	for _, c := range storeTools(url) {
		code, stdout, stderr := runTool(c.run, c.stdin, c.args...)
		want := regexp.MustCompile(`^` + c.tool + `: .*Redis at ` + regexp.QuoteMeta(addr) + ` \(db 0\) does not run Lua scripts, which every crawlutils store needs \(are EVAL and EVALSHA renamed or disabled`)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 1 || stdout != "" || !want.MatchString(first) {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 1 and a first line matching %s", c.tool, strings.Join(c.args, " "), code, stdout, stderr, want)
		}
	}
}

// TestRedisOutOfMemory: a Redis at its maxmemory (noeviction, Redis's
// default policy) refuses writes with OOM. Each tool that must write says
// so, naming the server, and exits 1; cqueue push says which records were
// not stored. Nothing queued before is lost: once Redis has room again,
// the queued requests are all there, and the refused ones can be pushed
// again.
func TestRedisOutOfMemory(t *testing.T) {
	srv := redistest.StartServer(t)
	url := srv.URL()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0")
	var urls strings.Builder
	for i := range 100 {
		urls.WriteString("http://a.test/" + string(rune('a'+i%26)) + "/" + strings.Repeat("x", i) + "\n")
	}
	if code, _, stderr := runTool(cqueueCommand, urls.String(), "push", "-q", "--redis", url); code != 0 {
		t.Fatalf("push: exit %d\n%s", code, stderr)
	}
	// Fill it, then set maxmemory below what it holds.
	if _, err := redistest.Do(addr, "SET", "filler", strings.Repeat("x", 4<<20)); err != nil {
		t.Fatal(err)
	}
	if _, err := redistest.Do(addr, "CONFIG", "SET", "maxmemory", "1mb"); err != nil {
		t.Fatal(err)
	}

	oom := `Redis at ` + regexp.QuoteMeta(addr) + ` \(db 0\) is out of memory: maxmemory is reached and it refuses writes, so nothing of this call was stored .*OOM command not allowed`
	for _, c := range []struct {
		tool  string
		run   toolRun
		stdin string
		args  []string
		want  string
	}{
		{"cqueue", cqueueCommand, "http://b.test/1\nhttp://b.test/2\n", []string{"push", "--redis", url},
			`(?s)^cqueue: frontier: push: redis: ` + oom + `.*\ncqueue: not stored: the 2 requests and acks read from <stdin>:1 to <stdin>:2`},
		{"cdedupe", cdedupe.Command, "http://b.test/1\n", []string{"--redis", url}, `^cdedupe: .*` + oom},
		{"cthrottle", cthrottle.Command, "http://b.test/1\n", []string{"--rate", "1/s", "--redis", url}, `^cthrottle: .*` + oom},
	} {
		code, stdout, stderr := runTool(c.run, c.stdin, c.args...)
		if code != 1 || stdout != "" || !regexp.MustCompile(c.want).MatchString(stderr) {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 1, stderr matching %s", c.tool, strings.Join(c.args, " "), code, stdout, stderr, c.want)
		}
	}
	// A pop may run while it is full: Redis refuses a script only at its
	// first write, and only a write that can take memory (a pop's first
	// takes a request off its queue). Either way it is whole or nothing.
	code, stdout, stderr := runTool(cqueueCommand, "", "pop", "--max", "10", "--redis", url)
	popped := strings.Count(stdout, "\n")
	if code == 0 && popped == 10 {
		t.Logf("pop while full: 10 requests leased")
	} else if first, _, _ := strings.Cut(stderr, "\n"); code != 1 || popped != 0 || !regexp.MustCompile(`^cqueue: frontier: .*: redis: `+oom).MatchString(first) {
		t.Errorf("pop while full: exit %d, %d requests, stderr %q", code, popped, stderr)
	}
	// Reading works while it is full.
	if code, stdout, stderr := runTool(cqueueCommand, "", "info", "--redis", url); code != 0 || !strings.Contains(stdout, fmt.Sprintf(`"queued":%d,"in_flight":%d,`, 100-popped, popped)) {
		t.Errorf("info while full: exit %d, %s%s", code, stdout, stderr)
	}

	// Room again: everything queued is there, nothing was leased, and the
	// refused requests go in.
	if _, err := redistest.Do(addr, "DEL", "filler"); err != nil {
		t.Fatal(err)
	}
	if _, err := redistest.Do(addr, "CONFIG", "SET", "maxmemory", "0"); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runTool(cqueueCommand, "http://b.test/1\nhttp://b.test/2\n", "push", "-q", "--redis", url); code != 0 {
		t.Fatalf("push after: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runTool(cqueueCommand, "", "reclaim", "-q", "--all", "--redis", url); code != 0 {
		t.Fatalf("reclaim --all: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = runTool(cqueueCommand, "", "pop", "-q", "--max", "1000", "--redis", url)
	if n := strings.Count(stdout, "\n"); code != 0 || n != 102 {
		t.Errorf("pop after: exit %d, %d requests, want 102\n%s", code, n, stderr)
	}
}

// TestRedisEvictionWarned: a Redis that evicts any key when full
// (maxmemory-policy allkeys-lru) could delete the frontier's keys without
// an error: each tool says so on stderr when it opens, once, and works.
func TestRedisEvictionWarned(t *testing.T) {
	srv := redistest.StartServer(t, "--maxmemory-policy", "allkeys-lru")
	var warned []string
	defer func(w func(string, ...any)) { storage.Warnf = w }(storage.Warnf)
	storage.Warnf = func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) }
	for range 2 {
		if code, _, stderr := runTool(cqueueCommand, "http://a.test/1\n", "push", "-q", "--redis", srv.URL()); code != 0 {
			t.Fatalf("push: exit %d\n%s", code, stderr)
		}
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "redis://"), "/0")
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "Redis at "+addr+" (db 0): maxmemory-policy is allkeys-lru: when it is full, Redis deletes keys") {
		t.Errorf("warnings: %q", warned)
	}
}

// TestRedisShardsMismatch: a prefix split into K shards (shards=K) is
// split so for good: a tool opening it with another shards= (or none)
// stops at once, exit 1, naming the split it found and the one to use
// (cqueue, cdedupe and cthrottle alike); nothing queued is touched. A shards= that is not a number of shards is
// refused as a bad URL.
func TestRedisShardsMismatch(t *testing.T) {
	url := redistest.Start(t) + "?prefix=split:"
	if code, _, stderr := runTool(cqueueCommand, "http://a.test/1\nhttp://b.test/1\n", "push", "-q", "--redis", url+"&shards=3"); code != 0 {
		t.Fatalf("push with shards=3: exit %d: %s", code, stderr)
	}
	for _, q := range []string{"", "&shards=2"} {
		code, stdout, stderr := runTool(cqueueCommand, "", "info", "--redis", url+q)
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "cqueue: frontier: open: the keys split:… at Redis at ") ||
			!strings.Contains(stderr, "are split into 3 shards") || !strings.Contains(stderr, "must use shards=3") {
			t.Errorf("info with %q: exit %d, stdout %q, stderr %q", q, code, stdout, stderr)
		}
	}
	for _, c := range storeTools(url + "&shards=2") {
		code, stdout, stderr := runTool(c.run, c.stdin, c.args...)
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, c.tool+": ") || !strings.Contains(stderr, "must use shards=3") {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q", c.tool, strings.Join(c.args, " "), code, stdout, stderr)
		}
	}
	code, stdout, _ := runTool(cqueueCommand, "", "info", "-q", "--redis", url+"&shards=3")
	if code != 0 || !strings.Contains(stdout, `"total_pending":2`) {
		t.Errorf("info with shards=3: exit %d, %s", code, stdout)
	}
	code, _, stderr := runTool(cqueueCommand, "", "info", "--redis", url+"&shards=0")
	if code == 0 || !strings.Contains(stderr, `shards="0": want how many slots to split each crawl over, 1 to 256`) {
		t.Errorf("shards=0: exit %d, stderr %q", code, stderr)
	}
}
