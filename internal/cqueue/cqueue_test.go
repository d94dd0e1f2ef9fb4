package cqueue

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

func run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// runAt is run with the command's clock (cli.Env.Now) stopped at now.
func runAt(t *testing.T, now time.Time, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := cli.NewEnv(strings.NewReader(stdin), &out, &errb)
	env.Now = func() time.Time { return now }
	code = cli.Execute(context.Background(), Command(), args, env)
	return out.String(), errb.String(), code
}

// Push, pop, ack: a popped request carries a lease; its ack finishes it;
// pop --follow then finds the crawl over and exits 0.
func TestPushPopAck(t *testing.T) {
	t.Parallel()
	db := "--db=" + filepath.Join(t.TempDir(), "q.db")
	_, errs, code := run(t, "https://a.example/1\nhttps://a.example/1\nhttps://b.example/\nnot a url\n{\"kind\":\"item\",\"data\":{}}\n", "push", db, "--crawlid", "c", "--appid", "app")
	if code != 3 || !strings.Contains(errs, "<stdin>:4:") || !strings.Contains(errs, "duplicate 1") {
		t.Fatalf("push: exit %d, stderr %s", code, errs)
	}
	out, _, code := run(t, "", "pop", db, "-q")
	if code != 0 || strings.Count(out, `"lease":"`) != 2 {
		t.Fatalf("pop: exit %d, %s", code, out)
	}
	var acks strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		i := strings.Index(line, `"lease":"`)
		lease := line[i+9 : len(line)-2]
		acks.WriteString(`{"kind":"ack","lease":"` + lease + `"}` + "\n")
	}
	if _, errs, code := run(t, acks.String(), "push", db); code != 0 || !strings.Contains(errs, "settled 2") {
		t.Fatalf("ack: exit %d, %s", code, errs)
	}
	if out, _, code := run(t, "", "pop", db, "--follow", "-q"); code != 0 || out != "" {
		t.Fatalf("pop --follow on a finished crawl: exit %d, %q", code, out)
	}
	if out, _, _ := run(t, "", "info", db); !strings.Contains(out, `"queued":0,"in_flight":0,"dead":0`) {
		t.Fatalf("info: %s", out)
	}
}

// A request that comes back to push with its lease was never fetched: it
// is queued again at once, not counted as a retry.
func TestUnfetchedRequestReturns(t *testing.T) {
	t.Parallel()
	db := "--db=" + filepath.Join(t.TempDir(), "q.db")
	run(t, "https://a.example/\n", "push", db)
	out, _, _ := run(t, "", "pop", db, "-q")
	if _, errs, code := run(t, out, "push", db); code != 0 || !strings.Contains(errs, "returned 1") {
		t.Fatalf("push back: %d %s", code, errs)
	}
	out2, _, _ := run(t, "", "pop", db, "-q")
	if !strings.Contains(out2, "https://a.example/") || strings.Contains(out2, "retries") || out2 == out {
		t.Fatalf("popped again: %s (first %s)", out2, out)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errs, code := run(t, "", "pop"); code != 2 || !strings.Contains(errs, "--db") {
		t.Errorf("no db: %d %s", code, errs)
	}
	notDB := filepath.Join(dir, "x.db")
	writeFile(t, notDB, "this is not sqlite, just some text that is long enough to be a header....................................")
	if _, errs, code := run(t, "https://a.example/\n", "push", "--db", notDB); code != 1 || !strings.Contains(errs, "cqueue: frontier: open") {
		t.Errorf("not a database: %d %s", code, errs)
	}
	db := "--db=" + filepath.Join(dir, "q.db")
	_, errs, code := run(t, `{"kind":"request","url":"/relative"}`+"\n"+`{"kind":"request","url":"https://a.example/","depth":"x"}`+"\n", "push", db)
	if code != 3 || !strings.Contains(errs, "<stdin>:1: invalid request: url") || !strings.Contains(errs, "<stdin>:2: invalid request") {
		t.Errorf("bad requests: %d %s", code, errs)
	}
	if _, errs, code := run(t, "", "frobnicate"); code != 2 || !strings.Contains(errs, "unknown subcommand") {
		t.Errorf("unknown subcommand: %d %s", code, errs)
	}
}

func writeFile(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A crawl past its expires is purged, and pop --follow says so with an
// "expired" record before it finds the crawl over.
func TestPopFollowReportsExpired(t *testing.T) {
	t.Parallel()
	db := "--db=" + filepath.Join(t.TempDir(), "q.db")
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	exp := now.Unix() + 2 // push refuses what expires within the second it runs in
	in := fmt.Sprintf(`{"kind":"request","url":"https://a.example/","crawlid":"c","appid":"app","expires":%d}`+"\n", exp)
	if _, errs, code := runAt(t, now, in, "push", db); code != 0 {
		t.Fatalf("push: %d %s", code, errs)
	}
	// Three seconds later, on the commands' clock.
	out, errs, code := runAt(t, now.Add(3*time.Second), "", "pop", db, "--follow", "-q")
	want := fmt.Sprintf(`{"kind":"expired","crawlid":"c","appid":"app","expires":%d,"purged":1}`+"\n", exp)
	if code != 0 || out != want {
		t.Fatalf("pop --follow: exit %d, stdout %q, want %q; stderr %s", code, out, want, errs)
	}
}

// The requests a dead pop --follow held go back to the queue at the next
// pop, without waiting out their leases: its process is gone.
func TestPopAfterDeadConsumer(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "q.db")
	if frontier.ThisMachine().Boot == "" {
		t.Skip("no boot id here")
	}
	run(t, "https://a.example/1\nhttps://a.example/2\n", "push", "--db", path)
	ctx := context.Background()
	fr, err := frontier.OpenSQLite(ctx, path, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gone := frontier.ThisMachine()
	gone.PID = 1<<31 - 2
	c, err := fr.Join(ctx, gone, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if r, err := fr.Pop(ctx, frontier.PopOptions{Max: 2, Lease: time.Hour, Consumer: c}, time.Now()); err != nil || len(r.Leased) != 2 {
		t.Fatalf("pop as the doomed consumer: %+v, %v", r, err)
	}
	fr.Close()
	out, errs, code := run(t, "", "pop", "--db", path, "-q")
	if code != 0 || strings.Count(out, `"lease":"`) != 2 || strings.Contains(out, "retries") {
		t.Fatalf("pop after the consumer died: exit %d, %q, %s", code, out, errs)
	}
}
