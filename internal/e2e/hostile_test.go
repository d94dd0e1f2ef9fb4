package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/hostile"
	"github.com/crawlutils/crawlutils/internal/record"
)

// The hostile web (internal/hostile): a server that misbehaves in every
// way a crawl meets, and the real commands run against it. cfetch must
// answer each request once, with the code docs/cfetch.md gives, in bounded
// time and memory; the crawl loop must settle every request and end.

// Bounds no healthy run comes near: the cases take about 4s (two
// --timeout rounds of 2s), cfetch's peak RSS is about 40 MiB (120 MiB
// under the race detector).
const (
	hostileDeadline = 60 * time.Second
	hostileMaxRSSMB = 200
)

// TestHostileServer runs cfetch once over every case of the hostile
// server, then the crawl loop over the same requests.
func TestHostileServer(t *testing.T) {
	srv := hostile.New()
	t.Cleanup(srv.Close)
	// Known defects are left out (each is skipped below, with what it
	// is), unless HOSTILE_DEFECTS is set: then they run, and fail until
	// they are fixed.
	withDefects := os.Getenv("HOSTILE_DEFECTS") != ""
	var cases []hostile.Case
	for _, c := range hostile.Cases {
		if c.Defect == "" || withDefects {
			cases = append(cases, c)
		}
	}
	t.Run("cfetch", func(t *testing.T) { hostileFetch(t, srv, cases, withDefects) })
	t.Run("loop", func(t *testing.T) { hostileLoop(t, srv, cases) })
}

// hostileFetch runs cfetch once over cases, then checks each case's
// response in a subtest of its own; a known defect is skipped there with
// its description.
func hostileFetch(t *testing.T, srv *hostile.Server, cases []hostile.Case, withDefects bool) {
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(srv.Request(c) + "\n")
	}
	args := append([]string{"--concurrency", "8"}, hostile.Flags...)
	cmd := command(t, "cfetch", args...)
	cmd.Stdin = strings.NewReader(in.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(hostileDeadline, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	elapsed := time.Since(start)
	if !timer.Stop() {
		t.Fatalf("cfetch still running after %v: killed\nstderr: %s\nserver saw: %v", hostileDeadline, stderr.String(), srv.HitList())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024 // KiB on Linux
	t.Logf("cfetch: %d requests in %v, exit %d, peak RSS %d MiB\n%s", len(cases), elapsed.Round(time.Millisecond), code, rss, stderr.String())
	if want := hostile.WantExit(cases); code != want {
		t.Errorf("cfetch exited %d, want %d", code, want)
	}
	if limit := maxRSS(); rss > limit {
		t.Errorf("cfetch's peak RSS was %d MiB, over %d MiB", rss, limit)
	}

	got := map[string][]record.Response{}
	lines := 0
	for line := range bytes.Lines(stdout.Bytes()) {
		lines++
		var r record.Response
		var req struct{ Attrs struct{ Case string } }
		if err := json.Unmarshal(line, &r); err != nil || r.Kind != "response" || json.Unmarshal(r.Request, &req) != nil {
			t.Errorf("not a response to a case: %.300s", line)
			continue
		}
		got[req.Attrs.Case] = append(got[req.Attrs.Case], r)
	}
	if lines != len(cases) {
		t.Errorf("%d records for %d requests", lines, len(cases))
	}
	for _, c := range hostile.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Defect != "" && !withDefects {
				t.Skip("known defect (HOSTILE_DEFECTS=1 runs it): " + c.Defect)
			}
			rs := got[c.Name]
			if len(rs) != 1 {
				t.Fatalf("%d responses, want exactly 1 (%s)", len(rs), c.Does)
			}
			checkOutcome(t, c, rs[0])
			if p := okPath(srv.Target(c)); p != "" && srv.Hits(p) != 0 {
				t.Errorf("%s reached the server %d times: an internal address was fetched from a public page", p, srv.Hits(p))
			}
		})
	}
}

// okPath is the path and query of u when it leads to the server's /ok
// page (where the cases into internal addresses point), else "".
func okPath(u string) string {
	if i := strings.Index(u, "/ok?"); i >= 0 {
		return u[i:]
	}
	return ""
}

// checkOutcome compares a response with what the case wants.
func checkOutcome(t *testing.T, c hostile.Case, r record.Response) {
	t.Helper()
	w := c.Want
	retries := 0
	if w.Retried {
		retries = hostile.Retries
	}
	if r.Error != w.Error || r.Status != w.Status || r.Retries != retries || len(r.Redirects) != w.Redirects {
		t.Errorf("%s:\n got error %q status %d retries %d redirects %d (%s)\nwant error %q status %d retries %d redirects %d",
			c.Does, r.Error, r.Status, r.Retries, len(r.Redirects), r.ErrorDetail, w.Error, w.Status, retries, w.Redirects)
	}
	if w.Warning != "" && !strings.Contains(strings.Join(r.Warnings, "\n"), w.Warning) {
		t.Errorf("%s: warnings %q, want one with %q", c.Does, r.Warnings, w.Warning)
	}
}

// maxRSS is the bound on cfetch's peak memory, in MiB: the race detector
// multiplies what a program uses.
func maxRSS() int64 {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				return 3 * hostileMaxRSSMB
			}
		}
	}
	return hostileMaxRSSMB
}

// hostileLoop runs the crawl loop over cases, seeded into a frontier, and
// checks it ends by itself with every request settled: nothing queued,
// nothing in flight (a request acked, or dead-lettered with a reason).
func hostileLoop(t *testing.T, srv *hostile.Server, cases []hostile.Case) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin, dir := binDir(t), t.TempDir()
	var seeds strings.Builder
	for _, c := range cases {
		seeds.WriteString(srv.Request(c) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "seeds.jsonl"), []byte(seeds.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(script string) *exec.Cmd {
		cmd := exec.Command("bash", "-c", "set -o pipefail; "+script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0",
			"FLAGS="+strings.Join(hostile.Flags, " "))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	if out, err := run("cqueue push -q --db crawl.db --crawlid hostile < seeds.jsonl").CombinedOutput(); err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}

	loop := run(`set +o pipefail
cqueue pop -q --db crawl.db --follow --lease 1m | cfetch -q --concurrency 8 $FLAGS |
	cextract -q --links -f t=title | cexport -q -o items.jsonl | cqueue push -q --db crawl.db
echo "${PIPESTATUS[*]}" > status`)
	var stderr bytes.Buffer
	loop.Stderr = &stderr
	start := time.Now()
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- loop.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the loop: %v", err)
		}
	case <-time.After(hostileDeadline):
		syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
		<-done
		info, _ := run("cqueue info --db crawl.db").CombinedOutput()
		t.Fatalf("the loop did not end by itself within %v; info: %s\nstderr: %s", hostileDeadline, info, stderr.String())
	}
	t.Logf("the loop ended after %v", time.Since(start).Round(time.Millisecond))
	if stderr.Len() > 0 {
		t.Logf("stderr:\n%s", stderr.String())
	}
	if st, _ := os.ReadFile(filepath.Join(dir, "status")); strings.TrimSpace(string(st)) != "0 0 0 0 0" {
		t.Errorf("exit statuses %q, want all 0", strings.TrimSpace(string(st)))
	}

	out, err := run("cqueue info --db crawl.db").Output()
	if err != nil {
		t.Fatalf("info: %v", err)
	}
	var info struct {
		Queued   int `json:"queued"`
		InFlight int `json:"in_flight"`
		Dead     int `json:"dead"`
	}
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatalf("info: %v: %s", err, out)
	}
	if info.Queued != 0 || info.InFlight != 0 {
		t.Errorf("after the loop: %d queued, %d in flight, want 0 (every request acked or dead)", info.Queued, info.InFlight)
	}
	t.Logf("frontier: %s", bytes.TrimSpace(out))

	items, _ := os.ReadFile(filepath.Join(dir, "items.jsonl"))
	if !bytes.Contains(items, []byte(`"t":"control"`)) {
		t.Errorf("no item from the control page:\n%s", items)
	}
	for _, c := range cases {
		// The case's own URL into an internal address, and the link to
		// it the public page has (its follow-up, in the loop).
		for _, u := range []string{srv.Target(c), hostile.PageLink(srv.Target(c))} {
			if p := okPath(u); p != "" && srv.Hits(p) != 0 {
				t.Errorf("%s: %s was fetched %d times, led to from a public page", c.Name, p, srv.Hits(p))
			}
		}
	}
}
