package e2e

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// stagePID finds the process of the loop's stage name ("pop", "cfetch",
// "cextract", "cexport" or "push") in process group pgid, or 0.
func stagePID(pgid int, name string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces, so split
		// after its closing parenthesis.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		tool := filepath.Base(args[0])
		if tool == "cqueue" && len(args) > 1 {
			tool = args[1]
		}
		if tool == name {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid
		}
	}
	return 0
}

// A loop never hangs on a dead neighbour: whichever stage dies, at
// whatever moment, the others end by themselves within seconds (a stage
// whose stdout loses its reader exits; one whose stdin ends finishes), and
// a rerun of the loop after 20 such deaths exports every product.
func TestLoopEndsWhenAnyStageDies(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find a stage's process")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	// Big and slow enough that 20 deaths (each after a few dozen pages,
	// and the few dozen more in flight) land before the crawl is over.
	l := newLoopSite(t, bin, demosite.Options{Products: 2000, Latency: 30 * time.Millisecond})
	stages := []string{"pop", "cfetch", "cextract", "cexport", "push"}
	const deaths = 20
	for k := range deaths {
		victim := stages[rand.IntN(len(stages))]
		c := l.cmd(l.script(0))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		for n := l.site.Stats().Requests + 5 + rand.IntN(40); l.site.Stats().Requests < n; {
			select {
			case <-done:
				t.Fatalf("death %d: the loop ended before %s was killed (the site is too small for this test)", k+1, victim)
			case <-time.After(2 * time.Millisecond):
			}
		}
		pid := stagePID(c.Process.Pid, victim)
		if pid == 0 {
			t.Logf("death %d: no %s left to kill (the loop ended)", k+1, victim)
		} else {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			var alive []string
			for _, s := range stages {
				if stagePID(c.Process.Pid, s) != 0 {
					alive = append(alive, s)
				}
			}
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			<-done
			t.Fatalf("death %d: %s killed, and %v still running 15s later", k+1, victim, alive)
		}
		t.Logf("death %d: %s killed; exit statuses %s", k+1, victim, l.status(0))
	}
	l.crawl(1)
	out := l.run(`cat "$W"/items-*.jsonl | cdedupe -q --db "$W/dedupe.db" --key .url | wc -l`)
	if n, _ := strconv.Atoi(strings.TrimSpace(out)); n != len(l.site.Truth()) {
		t.Errorf("after %d deaths and a rerun: %d distinct items, want %d", deaths, n, len(l.site.Truth()))
	}
	if out := l.run("cqueue info $DB"); !strings.Contains(out, `"queued":0,"in_flight":0,"dead":0`) {
		t.Errorf("after the rerun, info says %s", out)
	}
}

// The deaths that hung the loop forever: a later stage dies while the
// earlier ones are idle, one slow page in flight. Nothing is written, so
// no write fails; each stage notices its stdout has lost its reader.
func TestLoopEndsWhenALaterStageDiesWhileIdle(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	for _, victim := range []string{"push", "cexport", "cextract"} {
		t.Run(victim, func(t *testing.T) {
			srv, release := slowServer(t, time.Minute)
			defer close(release)
			dir := t.TempDir()
			l := &loop{t: t, url: srv.URL, dir: dir, bin: bin, db: "--db " + filepath.Join(dir, "crawl.db")}
			l.run(`echo "$SITE/slow" | cqueue push -q $DB`)
			c := l.cmd(`cd "$W"; cqueue pop -q $DB --follow | cfetch -q | cextract -q -f t=h1 | cexport -q -o items.jsonl | cqueue push -q $DB
echo "${PIPESTATUS[*]}" > status`)
			var stderr strings.Builder
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { c.Wait(); close(done) }()
			for srv.held.Load() == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			syscall.Kill(stagePID(c.Process.Pid, victim), syscall.SIGKILL)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				<-done
				t.Fatalf("%s killed with a page in flight: the rest of the loop still ran 10s later", victim)
			}
			st, _ := os.ReadFile(filepath.Join(dir, "status"))
			t.Logf("exit statuses %s; stderr:\n%s", strings.TrimSpace(string(st)), stderr.String())
			if !strings.Contains(stderr.String(), "cqueue: write stdout: the reader is gone") && !strings.Contains(stderr.String(), "cqueue: stdout: the reader is gone") {
				t.Errorf("pop did not say why it stopped:\n%s", stderr.String())
			}
			// The lease is the dead loop's: the next pop hands it out again.
			if out := l.run("cqueue info $DB"); !strings.Contains(out, `"in_flight":1`) {
				t.Errorf("after the loop ended, info says %s", out)
			}
		})
	}
}

// A leased response that cextract cannot read is answered with an ack
// carrying an error, and the loop ends with the request dead (it used to
// renew the lease forever). The filter spoils the seed's response.
func TestLoopEndsOnAResponseCextractRejects(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	srv, release := slowServer(t, 0)
	close(release)
	dir := t.TempDir()
	l := &loop{t: t, url: srv.URL, dir: dir, bin: binDir(t), db: "--db " + filepath.Join(dir, "crawl.db")}
	l.run(`echo "$SITE/page" | cqueue push -q $DB`)
	c := l.cmd(`cd "$W"; cqueue pop -q $DB --follow | cfetch -q | sed -u 's/"status":200/"status":"200"/' | cextract -q -f t=h1 | cexport -q -o items.jsonl | cqueue push -q $DB`)
	var stderr strings.Builder
	c.Stderr = &stderr
	done := make(chan error, 1)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("the loop still ran 20s after its only response was rejected:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), `invalid record: field "status"`) {
		t.Errorf("cextract did not report the record:\n%s", stderr.String())
	}
	if out := l.run("cqueue info $DB"); !strings.Contains(out, `"queued":0,"in_flight":0,"dead":1`) {
		t.Errorf("after the loop, info says %s", out)
	}
	if out := l.run("cqueue dump $DB"); !strings.Contains(out, `"reason":"invalid_record"`) {
		t.Errorf("the dead request lacks its reason: %s", out)
	}
}
