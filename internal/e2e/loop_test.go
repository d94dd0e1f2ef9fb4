package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// The crawl loop's guarantees (docs/frontier.md), each on a real pipeline
// of the real commands (the test binary linked under their names) against
// the demo site, with real signals.

// loopSite is the demo site of the loop tests: small enough to crawl many
// times, big enough for several hundred pages.
var loopSite = demosite.Options{Products: 300}

// loop is one crawl: a site, a frontier, the commands on PATH.
type loop struct {
	t    *testing.T
	site *demosite.Site
	url  string
	dir  string
	bin  string
	db   string // --db FILE or --redis URL, as flags
}

func newLoop(t *testing.T, bin string) *loop {
	return newLoopSite(t, bin, loopSite)
}

func newLoopSite(t *testing.T, bin string, opts demosite.Options) *loop {
	site := demosite.New(opts)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	l := &loop{t: t, site: site, url: srv.URL, dir: dir, bin: bin, db: "--db " + filepath.Join(dir, "crawl.db")}
	l.run("echo \"$SITE/\" | cqueue push -q $DB --crawlid demo --appid demo")
	return l
}

// binDir links the test binary under every command's name.
func binDir(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"cqueue", "cfetch", "cextract", "cexport", "cdedupe", "cthrottle"} {
		if err := os.Symlink(exe, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pipeline is the crawl loop as scripts/crawl.sh runs it, writing the
// items of consumer n to items-n.jsonl and the exit statuses to status-n.
func pipeline(n int) string {
	return fmt.Sprintf(`set +e
cqueue pop -q $DB --follow --window 32 --lease 1m | cfetch -q --concurrency 8 |
	cextract -q -r ../../testdata/rules/demo.yml | cexport -q -o items-%[1]d.jsonl | cqueue push -q $DB
echo "${PIPESTATUS[*]}" > status-%[1]d`, n)
}

func (l *loop) cmd(script string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", script)
	wd, _ := os.Getwd()
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "PATH="+l.bin+":"+os.Getenv("PATH"), "SITE="+l.url, "DB="+l.db,
		"GORACE=atexit_sleep_ms=0", "W="+l.dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// run runs a shell script (in the package directory, files in l.dir via
// $W) and fails the test if it fails.
func (l *loop) run(script string) string {
	l.t.Helper()
	out, err := l.cmd("cd \"$W\" 2>/dev/null || true; " + script).CombinedOutput()
	if err != nil {
		l.t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// crawl runs n loops at once to the end and checks every process exited 0.
func (l *loop) crawl(n int) {
	l.t.Helper()
	var cmds []*exec.Cmd
	for i := range n {
		c := l.cmd(l.script(i))
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			l.t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for i, c := range cmds {
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				l.t.Fatalf("loop %d: %v", i, err)
			}
		case <-time.After(2 * time.Minute):
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			l.t.Fatalf("loop %d did not end by itself", i)
		}
		if st := l.status(i); st != "0 0 0 0 0" {
			l.t.Errorf("loop %d: exit statuses %q, want all 0", i, st)
		}
	}
}

func (l *loop) script(i int) string {
	wd, _ := os.Getwd()
	return "cd \"$W\"; ln -sfn " + filepath.Join(wd, "../../testdata") + " testdata 2>/dev/null; mkdir -p a/b; cd a/b; " +
		strings.ReplaceAll(pipeline(i), "items-", "../../items-") + ""
}

func (l *loop) status(i int) string {
	b, _ := os.ReadFile(filepath.Join(l.dir, "a/b", fmt.Sprintf("status-%d", i)))
	return strings.TrimSpace(string(b))
}

// items reads every items-*.jsonl and counts each product URL.
func (l *loop) items() map[string]int {
	l.t.Helper()
	got := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(l.dir, "items-*.jsonl"))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			l.t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var it struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
				// A SIGKILL in the middle of a write tears the last line,
				// and cexport --append writes on after it.
				l.t.Logf("%s: torn line (a kill mid-write): %v", filepath.Base(name), err)
				continue
			}
			got[it.URL]++
		}
		f.Close()
	}
	return got
}

// checkItems checks every ground-truth product was exported, and returns
// how many were exported more than once.
func (l *loop) checkItems() (dups int) {
	l.t.Helper()
	got := l.items()
	truth := l.site.Truth()
	for _, p := range truth {
		if got[p.AbsURL(l.url)] == 0 {
			l.t.Errorf("product %s missing from the export", p.URL)
		}
	}
	for _, n := range got {
		dups += n - 1
	}
	if len(got) != len(truth) {
		l.t.Errorf("exported %d distinct products, want %d", len(got), len(truth))
	}
	return dups
}

// waitRequests waits until the site has answered n requests, or for at
// most limit (the loop may end first).
func (l *loop) waitRequests(n int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for l.site.Stats().Requests < n && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}

// checkPerfect checks the site saw exactly the requests of a perfect crawl
// (demosite.PerfectCrawl: robots.txt, every page and redirect once, one
// retry per one-time failure), less nothing and plus only one robots.txt
// per further cfetch process, and no retry before its Retry-After.
func (l *loop) checkPerfect(fetchers int) {
	l.t.Helper()
	st := l.site.Stats()
	robots := max(st.RobotsTxt-1, 0)
	if st.Duplicates != robots || st.Requests != st.Expected+robots || st.EarlyRetries != 0 || robots >= fetchers {
		l.t.Errorf("the site saw %d requests for a perfect crawl's %d: %d duplicates, %d robots.txt for %d fetchers, %d early retries",
			st.Requests, st.Expected, st.Duplicates, st.RobotsTxt, fetchers, st.EarlyRetries)
	}
}

// refetches compares the site's hits with a clean crawl's (robots.txt
// aside): the total of extra fetches, and the paths fetched more often.
func refetches(hits, clean map[string]int) (extra int, paths []string) {
	for p, n := range hits {
		if p == "/robots.txt" {
			continue
		}
		if n > clean[p] {
			extra += n - clean[p]
			paths = append(paths, p)
		}
	}
	return extra, paths
}

func TestCrawlLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)

	// A clean crawl: the reference for every other one.
	clean := newLoop(t, bin)
	clean.crawl(1)
	if dups := clean.checkItems(); dups != 0 {
		t.Errorf("clean crawl: %d products exported twice", dups)
	}
	clean.checkPerfect(1)
	cleanHits := clean.site.Hits()
	if out := clean.run("cqueue info $DB"); !strings.Contains(out, `"queued":0,"in_flight":0,"dead":0`) {
		t.Errorf("after the crawl, info says %s", out)
	}

	t.Run("ends_by_itself_with_every_process_exiting_0", func(t *testing.T) {
		// The clean crawl above: checked there.
		if extra, paths := refetches(cleanHits, cleanHits); extra != 0 {
			t.Fatal(paths)
		}
	})

	t.Run("sigkill_at_random_moments_then_rerun_loses_nothing", func(t *testing.T) {
		slowSite := loopSite
		slowSite.Latency = 10 * time.Millisecond // the kills land mid-crawl
		l := newLoopSite(t, bin, slowSite)
		const kills, window = 4, 32
		for k := range kills {
			c := l.cmd(l.script(0))
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			// Kill after a random number of pages, not a random time: on a
			// busy machine a timed kill can land before the loop has leased
			// anything.
			l.waitRequests(l.site.Stats().Requests+10+rand.IntN(60), 30*time.Second)
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			c.Wait()
			// Nothing to do between the runs: the next cqueue pop sees the
			// dead one's process is gone and hands its requests out again.
			t.Logf("kill %d: %s", k+1, strings.TrimSpace(l.run("cqueue info $DB | jq -c '{queued, in_flight, dead}'")))
		}
		l.crawl(1)
		if out := l.run("cqueue stats $DB"); !strings.Contains(out, `"abandoned":`) {
			t.Errorf("after %d kills, no request was abandoned by a dead consumer: %s", kills, out)
		}
		dups := l.checkItems()
		extra, paths := refetches(l.site.Hits(), cleanHits)
		t.Logf("%d kills: %d pages fetched again, %d products exported twice", kills, extra, dups)
		// Products exported twice (written, then killed before their ack
		// settled) are removed by cdedupe: one line per product remains.
		out := l.run(`cat "$W"/items-*.jsonl | cdedupe -q --db "$W/dedupe.db" --key .url | wc -l`)
		if n, _ := strconv.Atoi(strings.TrimSpace(out)); n != len(l.site.Truth()) {
			t.Errorf("after cdedupe --key .url: %d items, want %d", n, len(l.site.Truth()))
		}
		if extra > kills*window {
			t.Errorf("%d pages fetched again after %d kills, more than %d (the in-flight window each time): %v", extra, kills, kills*window, paths)
		}
	})

	t.Run("items_on_stdout", func(t *testing.T) {
		// For users who want the items on stdout instead of in a file: the
		// loop ends with cqueue push, which consumes requests and acks and
		// passes the items through; or, with a named FIFO, cexport writes
		// the items to the pipeline's stdout (fd 3) and sends requests and
		// acks back to push through the FIFO (docs/frontier.md).
		wd, _ := os.Getwd()
		rules := filepath.Join(wd, "../../testdata/rules/demo.yml")
		for name, script := range map[string]string{
			"through push": `cqueue pop -q $DB --follow | cfetch -q | cextract -q -r ` + rules + ` | cqueue push -q $DB`,
			"through a fifo": `mkfifo "$W/back"
cqueue push -q $DB < "$W/back" &
cqueue pop -q $DB --follow | cfetch -q | cextract -q -r ` + rules + ` | cexport -q -f jsonl -o /dev/fd/3 3>&1 >"$W/back"
wait`,
		} {
			l := newLoopSite(t, bin, loopSite)
			out := l.run("set -o pipefail\n" + script)
			urls := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				// An item record (through push) and a data object (cexport's
				// jsonl) both carry the product's url at the top.
				var it struct {
					URL string `json:"url"`
				}
				if err := json.Unmarshal([]byte(line), &it); err != nil || it.URL == "" {
					t.Fatalf("%s: stdout line %q is not an item (%v)", name, line, err)
				}
				urls[it.URL] = true
			}
			if len(urls) != len(l.site.Truth()) {
				t.Errorf("%s: %d distinct items on stdout, want %d", name, len(urls), len(l.site.Truth()))
			}
		}
	})

	t.Run("ctrl_c_then_rerun_fetches_nothing_twice", func(t *testing.T) {
		// Slow pages, so the signal lands mid-crawl on any machine.
		slowSite := loopSite
		slowSite.Latency = 20 * time.Millisecond
		l := newLoopSite(t, bin, slowSite)
		c := l.cmd(l.script(0))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// The signal lands once every process of the loop is at work (and so
		// has its handler): items exported, follow-ups pushed. A fixed delay
		// lands before bash has started the pipeline on a busy machine.
		l.waitMidCrawl(c)
		syscall.Kill(-c.Process.Pid, syscall.SIGINT)
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
		st := strings.Fields(l.status(0))
		if len(st) != 5 || st[0] != "130" {
			t.Errorf("after SIGINT, exit statuses %v, want cqueue pop 130", st)
		}
		for i, s := range st {
			if s != "0" && s != "130" {
				t.Errorf("process %d of the pipeline exited %s after SIGINT", i, s)
			}
		}
		if out := l.run("cqueue info $DB"); !strings.Contains(out, `"in_flight":0,`) {
			t.Errorf("after Ctrl-C, requests are still in flight: %s", out)
		}
		l.crawl(1)
		// Every product exported, and none twice: cfetch releases the leased
		// requests an interrupt stopped before their last exchange (a retry
		// of a flaky page, a redirect hop, never started) instead of
		// answering them, so the rerun fetches them.
		got := l.items()
		for u, n := range got {
			if n > 1 {
				t.Errorf("%s exported %d times", u, n)
			}
		}
		l.checkItems()
		if extra, paths := refetches(l.site.Hits(), cleanHits); extra != 0 {
			t.Errorf("%d pages fetched twice after Ctrl-C and rerun: %v", extra, paths)
		}
	})

	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d_consumers_fetch_every_page_once", n), func(t *testing.T) {
			l := newLoop(t, bin)
			l.crawl(n)
			if dups := l.checkItems(); dups != 0 {
				t.Errorf("%d products exported twice", dups)
			}
			if extra, paths := refetches(l.site.Hits(), cleanHits); extra != 0 {
				t.Errorf("%d pages fetched twice: %v", extra, paths)
			}
			l.checkPerfect(n)
		})
	}

	t.Run("redis_1_2_and_4_consumers", func(t *testing.T) {
		for _, n := range []int{1, 2, 4} {
			url := redistest.Start(t)
			l := &loop{t: t, site: demosite.New(loopSite), dir: t.TempDir(), bin: bin, db: "--redis " + url}
			srv := httptest.NewServer(l.site)
			defer srv.Close()
			l.url = srv.URL
			l.run("echo \"$SITE/\" | cqueue push -q $DB --crawlid demo --appid demo")
			l.crawl(n)
			if dups := l.checkItems(); dups != 0 {
				t.Errorf("redis, %d consumers: %d products exported twice", n, dups)
			}
			if extra, paths := refetches(l.site.Hits(), cleanHits); extra != 0 {
				t.Errorf("redis, %d consumers: %d pages fetched twice: %v", n, extra, paths)
			}
			l.checkPerfect(n)
		}
	})
}

// waitMidCrawl waits until the loop started by c has exported items and
// pushed follow-ups (more than the seed queued or in flight): every one of
// its five processes is running. It fails the test if the loop ends first.
func (l *loop) waitMidCrawl(c *exec.Cmd) {
	l.t.Helper()
	items := filepath.Join(l.dir, "items-0.jsonl")
	for {
		if l.status(0) != "" {
			l.t.Fatalf("the loop ended before it was seen mid-crawl (exit statuses %q)", l.status(0))
		}
		if b, _ := os.ReadFile(items); strings.Count(string(b), "\n") >= 3 {
			var info struct {
				Queued   int64 `json:"queued"`
				InFlight int64 `json:"in_flight"`
			}
			out, err := l.cmd("cqueue info $DB").Output()
			if err == nil && json.Unmarshal(out, &info) == nil && info.Queued+info.InFlight > 1 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond) // polling: the condition is observed, not waited for
	}
}
