package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// cqueue crawl, the whole crawl in one command, on the demo site: the
// loop's guarantees (docs/frontier.md) hold through it, and what new users
// ran into with the shell script it replaces does not happen.

// newCrawlSite is a demo site and a work directory, with nothing queued.
func newCrawlSite(t *testing.T, bin string, opts demosite.Options) *loop {
	site := demosite.New(opts)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	return &loop{t: t, site: site, url: srv.URL, dir: dir, bin: bin}
}

// seededCrawlSite is newCrawlSite with seeds.txt naming the site's home
// page, for a test of cqueue crawl: skipped with -short or without bash.
func seededCrawlSite(t *testing.T, opts demosite.Options) *loop {
	t.Helper()
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	l := newCrawlSite(t, binDir(t), opts)
	l.writeFile("seeds.txt", l.url+"/\n")
	return l
}

// crawlRun is how one cqueue crawl ended.
type crawlRun struct {
	code   int
	stderr string
	stdout string
}

// start starts cqueue crawl with args (shell words) in the work directory,
// as the leader of its own process group, with $RULES the demo rules.
func (l *loop) startCrawl(args string, extraEnv ...string) (*exec.Cmd, *strings.Builder, *strings.Builder) {
	wd, _ := os.Getwd()
	c := l.cmd(`cd "$W" && exec cqueue crawl ` + args)
	c.Env = append(c.Env, "RULES="+filepath.Join(wd, "../../testdata/rules/demo.yml"))
	c.Env = append(c.Env, extraEnv...)
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Start(); err != nil {
		l.t.Fatal(err)
	}
	return c, &stdout, &stderr
}

// wait waits for a cqueue crawl started by startCrawl.
func (l *loop) wait(c *exec.Cmd, stdout, stderr fmt.Stringer) crawlRun {
	l.t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
		l.t.Fatalf("cqueue crawl did not end by itself:\n%s", stderr.String())
	}
	r := crawlRun{stderr: stderr.String(), stdout: stdout.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		l.t.Fatal(err)
	}
	return r
}

func (l *loop) runCrawl(args string, extraEnv ...string) crawlRun {
	l.t.Helper()
	c, stdout, stderr := l.startCrawl(args, extraEnv...)
	return l.wait(c, stdout, stderr)
}

func (l *loop) writeFile(name, content string) {
	l.t.Helper()
	if err := os.WriteFile(filepath.Join(l.dir, name), []byte(content), 0o644); err != nil {
		l.t.Fatal(err)
	}
}

// want fails the test unless the run exited with code and its stderr has
// every one of lines.
func (r crawlRun) want(t *testing.T, code int, lines ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("cqueue crawl exited %d, want %d:\n%s", r.code, code, r.stderr)
	}
	for _, s := range lines {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

// noProcessesLeft checks that nothing of the loop outlived cqueue crawl.
func noProcessesLeft(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Errorf("processes of group %d are still running after cqueue crawl exited", pgid)
			syscall.Kill(-pgid, syscall.SIGKILL)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCqueueCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)

	// The reference crawl: every product exported once, every page fetched
	// once. The seeds file, written by hand, has a comment and a blank
	// line: skipped, no seeds and no errors.
	clean := newCrawlSite(t, bin, loopSite)
	clean.writeFile("seeds.txt", "# the demo shop\n"+clean.url+"/\n\n")
	r := clean.runCrawl(`--stats acct.json seeds.txt "$RULES" items-0.jsonl`)
	r.want(t, 0, "cqueue: seeds (seeds.txt): 1 queued\n",
		"cqueue: complete: nothing is left queued or in flight\n")
	if dups := clean.checkItems(); dups != 0 {
		t.Errorf("%d products exported twice", dups)
	}
	clean.checkPerfect(1)
	cleanHits := clean.site.Hits()
	var acct struct {
		CrawlID  string `json:"crawlid"`
		State    string `json:"state"`
		Complete bool   `json:"complete"`
		Exit     int    `json:"exit"`
		Pages    struct {
			Total   int64            `json:"total"`
			ByClass map[string]int64 `json:"by_class"`
		} `json:"pages"`
		Items struct {
			Exported int64 `json:"exported"`
		} `json:"items"`
		Rejected []struct {
			Tool, Reason string
			Count        int64
		} `json:"rejected"`
	}
	b, err := os.ReadFile(filepath.Join(clean.dir, "acct.json"))
	if err == nil {
		err = json.Unmarshal(b, &acct)
	}
	if err != nil {
		t.Fatalf("--stats: %v", err)
	}
	truth := int64(len(clean.site.Truth()))
	if acct.CrawlID != "items-0" || acct.State != "complete" || !acct.Complete || acct.Exit != 0 ||
		acct.Pages.ByClass["2xx"] < truth || acct.Pages.Total < acct.Pages.ByClass["2xx"] || acct.Items.Exported != truth ||
		len(acct.Rejected) != 0 {
		t.Errorf("--stats account %s", b)
	}

	t.Run("rerun_of_a_complete_crawl_with_refresh_fetches_nothing", func(t *testing.T) {
		// A rerun would begin round 2; with --refresh 24h every page of
		// round 1 is fresh, so it begins none, and does not say it does.
		before := clean.site.Stats().Requests
		r := clean.runCrawl(`seeds.txt "$RULES" items-0.jsonl --refresh 24h`)
		r.want(t, 0, `cqueue: crawl "items-0" round 2: every seed was fetched in a round begun less than 24h0m0s ago (--refresh): nothing to crawl (round 1 stays the last)`)
		if strings.Contains(r.stderr, "begins") {
			t.Errorf("a run with nothing due says a round begins:\n%s", r.stderr)
		}
		if n := clean.site.Stats().Requests; n != before {
			t.Errorf("the rerun made %d requests", n-before)
		}
		clean.checkItems()
	})

	t.Run("other_rules_after_a_mistyped_name_are_refused_not_exported_twice", func(t *testing.T) {
		l := newCrawlSite(t, bin, loopSite)
		l.writeFile("seeds.txt", l.url+"/\n")
		// A mistyped rules file: refused before anything is stored.
		r := l.runCrawl(`seeds.txt demo-typo.yml items-0.jsonl`)
		r.want(t, 2, "cqueue: rules: demo-typo.yml: no such file or directory\n")
		if _, err := os.Stat(filepath.Join(l.dir, "items-0.jsonl.db")); err == nil {
			t.Errorf("a mistyped rules file left a frontier behind")
		}
		// The wrong rules (an older copy): the crawl runs.
		rules, _ := os.ReadFile("../../testdata/rules/demo.yml")
		l.writeFile("old.yml", string(rules)+"# an older copy\n")
		l.runCrawl(`seeds.txt old.yml items-0.jsonl`).want(t, 0, "complete: nothing is left queued or in flight")
		hits := l.site.Stats().Requests
		// The right ones: the crawl named after its export is the same
		// crawl, started with other rules: refused, nothing fetched or
		// exported again.
		r = l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`)
		r.want(t, 2, `cqueue: crawl "items-0" was started with rules old.yml (sha256 `,
			"this run has other rules (", "use --force to go on with them, or another --crawlid")
		if n := l.site.Stats().Requests; n != hits {
			t.Errorf("the refused run made %d requests", n-hits)
		}
		if dups := l.checkItems(); dups != 0 {
			t.Errorf("%d products exported twice", dups)
		}
	})

	t.Run("sigkill_of_the_group_then_rerun_completes", func(t *testing.T) {
		// The kills land mid-crawl: at 60 ms a page the crawl takes over
		// a second, the kills come within 0.6 s of each start. (At 20 ms
		// a quick run was over before its kill, and the next run began
		// round 2, fetching everything again.)
		slowSite := loopSite
		slowSite.Latency = 60 * time.Millisecond
		l := newCrawlSite(t, bin, slowSite)
		l.writeFile("seeds.txt", l.url+"/\n")
		const kills, window = 3, 32
		for range kills {
			c, _, _ := l.startCrawl(`seeds.txt "$RULES" items-0.jsonl --pop '--window 32'`)
			time.Sleep(time.Duration(100+rand.IntN(500)) * time.Millisecond)
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			c.Wait()
			noProcessesLeft(t, c.Process.Pid)
		}
		r := l.runCrawl(`seeds.txt "$RULES" items-0.jsonl --pop '--window 32'`)
		r.want(t, 0)
		if !strings.Contains(r.stderr, "cqueue: complete: nothing is left queued or in flight\n") &&
			!strings.Contains(r.stderr, `cqueue: crawl "items-0" is complete: every seed was crawled before`) &&
			!strings.Contains(r.stderr, `round 2 begins`) { // the last kill came late
			t.Errorf("the rerun does not say the crawl is complete:\n%s", r.stderr)
		}
		l.checkItems()
		if extra, paths := refetches(l.site.Hits(), cleanHits); extra > kills*window {
			t.Errorf("%d pages fetched again after %d kills, more than %d (the window each time): %v", extra, kills, kills*window, paths)
		}
	})

	t.Run("sigkill_of_cqueue_crawl_alone_ends_its_tools", func(t *testing.T) {
		// Where the kernel does not deliver the parent-death signal (some
		// sandboxes), each tool watches its parent itself: the test leaves
		// the signal out, kills cqueue crawl alone, and sees every tool
		// end; the rerun completes the crawl.
		slowSite := loopSite
		slowSite.Latency = 20 * time.Millisecond
		l := newCrawlSite(t, bin, slowSite)
		l.writeFile("seeds.txt", l.url+"/\n")
		c, _, _ := l.startCrawl(`seeds.txt "$RULES" items-0.jsonl`, "CRAWLUTILS_TEST_NO_DEATHSIG=1")
		for deadline := time.Now().Add(time.Minute); l.site.Stats().Requests < 40 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		syscall.Kill(c.Process.Pid, syscall.SIGKILL) // cqueue crawl only
		c.Wait()
		noProcessesLeft(t, c.Process.Pid)
		// The tools stopped mid-crawl, not at its end: what they held is
		// still leased (or queued) for the rerun.
		if out := l.run("cqueue info --db items-0.jsonl.db"); strings.Contains(out, `"queued":0,"in_flight":0,`) {
			t.Errorf("the tools of the killed cqueue crawl went on to the end of the crawl: %s", out)
		}
		// The rerun says what the kill cost (it was silent).
		l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`).want(t, 0, `crawl "items-0" round 1: its last run (pid `,
			`) ended without finishing (killed, or its machine went down): resuming the round; what it held in flight (`,
			"complete: nothing is left queued or in flight")
		l.checkItems()
	})

	for _, how := range []string{"ctrl_c_to_the_group", "sigterm_to_cqueue_crawl_alone"} {
		t.Run(how+"_drains_then_rerun_fetches_nothing_twice", func(t *testing.T) {
			slowSite := loopSite
			slowSite.Latency = 20 * time.Millisecond
			l := newCrawlSite(t, bin, slowSite)
			l.writeFile("seeds.txt", l.url+"/\n")
			c, stdout, stderr := l.startCrawl(`seeds.txt "$RULES" items-0.jsonl`)
			// Once the loop is under way, however long it took to start.
			for deadline := time.Now().Add(time.Minute); l.site.Stats().Requests < 40 && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			if how == "ctrl_c_to_the_group" {
				syscall.Kill(-c.Process.Pid, syscall.SIGINT) // every process, as a terminal does
			} else {
				syscall.Kill(c.Process.Pid, syscall.SIGTERM) // cqueue crawl only
			}
			r := l.wait(c, stdout, stderr)
			noProcessesLeft(t, c.Process.Pid)
			if r.code == 0 && strings.Contains(r.stderr, "complete: nothing is left") {
				t.Skip("the crawl was over before the signal")
			}
			r.want(t, 130, "; run the same command again to resume\n", "cqueue: interrupted: ")
			if out := l.run("cqueue info --db items-0.jsonl.db"); !strings.Contains(out, `"in_flight":0,`) {
				t.Errorf("after the interrupt, requests are still in flight: %s\n%s", out, r.stderr)
			}
			l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`).want(t, 0, "complete: nothing is left queued or in flight")
			got := l.items()
			for u, n := range got {
				if n > 1 {
					t.Errorf("%s exported %d times", u, n)
				}
			}
			l.checkItems()
			if extra, paths := refetches(l.site.Hits(), cleanHits); extra != 0 {
				t.Errorf("%d pages fetched twice after the interrupt and the rerun: %v", extra, paths)
			}
		})
	}

	t.Run("unreachable_seed_fails_and_says_why", func(t *testing.T) {
		l := newCrawlSite(t, bin, loopSite)
		l.writeFile("seeds.txt", "http://127.0.0.1:1/\n")
		r := l.runCrawl(`seeds.txt "$RULES" items-0.csv`)
		r.want(t, 1, "cqueue: nothing could be fetched: every seed failed: refused 1\n",
			`cqueue: crawl "items-0": 1 page in `, "; errors: refused 1\n")
		// Quiet, it still says why it failed.
		r = l.runCrawl(`-q seeds.txt "$RULES" other.csv`)
		if r.code != 1 || strings.TrimSpace(r.stderr) != "cqueue: nothing could be fetched: every seed failed: refused 1" {
			t.Errorf("with -q: exit %d, stderr %q", r.code, r.stderr)
		}
	})

	t.Run("items_on_stdout", func(t *testing.T) {
		l := newCrawlSite(t, bin, loopSite)
		l.writeFile("seeds.txt", l.url+"/\n")
		r := l.runCrawl(`-q seeds.txt "$RULES" - --db crawl.db`)
		r.want(t, 0)
		urls := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var it struct {
				Kind string `json:"kind"`
				URL  string `json:"url"`
			}
			if err := json.Unmarshal([]byte(line), &it); err != nil || it.Kind != "item" {
				t.Fatalf("stdout line %q is not an item (%v)", line, err)
			}
			urls[it.URL] = true
		}
		if len(urls) != len(l.site.Truth()) {
			t.Errorf("%d distinct items on stdout, want %d", len(urls), len(l.site.Truth()))
		}
	})

	t.Run("redis_from_the_environment", func(t *testing.T) {
		url := redistest.Start(t)
		l := newCrawlSite(t, bin, loopSite)
		l.writeFile("seeds.txt", l.url+"/\n")
		r := l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`, "CRAWLUTILS_REDIS="+url)
		r.want(t, 0, "complete: nothing is left queued or in flight")
		if _, err := os.Stat(filepath.Join(l.dir, "items-0.jsonl.db")); err == nil {
			t.Errorf("with CRAWLUTILS_REDIS set, an SQLite frontier was made")
		}
		if dups := l.checkItems(); dups != 0 {
			t.Errorf("%d products exported twice", dups)
		}
		l.checkPerfect(1)
		// The crawl's identity is in Redis too.
		l.writeFile("other.yml", "version: 1\nitems:\n  - name: page\n    fields:\n      title: h1\n")
		l.runCrawl(`seeds.txt other.yml items-0.jsonl`, "CRAWLUTILS_REDIS="+url).want(t, 2, `crawl "items-0" was started with rules `)
	})
}
