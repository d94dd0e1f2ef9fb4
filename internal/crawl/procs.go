package crawl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/crawlutils/crawlutils/internal/childproc"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// toolPaths are the programs of the crawl loop.
type toolPaths struct{ cqueue, cfetch, cextract, cexport, cthrottle string }

// findTools finds the programs of the loop: this cqueue itself, and each
// other tool next to it (so one installation runs with its own tools),
// else on PATH.
func findTools(throttle bool) (toolPaths, error) {
	var t toolPaths
	exe, err := os.Executable()
	if err != nil {
		if exe, err = exec.LookPath("cqueue"); err != nil {
			return t, fmt.Errorf("cannot find this program's own file: %v", err)
		}
	}
	t.cqueue = exe
	for _, p := range []struct {
		dst  *string
		name string
	}{{&t.cfetch, "cfetch"}, {&t.cextract, "cextract"}, {&t.cexport, "cexport"}, {&t.cthrottle, "cthrottle"}} {
		if p.dst == &t.cthrottle && !throttle {
			continue
		}
		path, err := childproc.Find(p.name)
		if err != nil {
			return t, fmt.Errorf("cannot find %s, next to %s or on PATH (go install ./cmd/... installs every tool)", p.name, exe)
		}
		*p.dst = path
	}
	return t, nil
}

// command returns the command running program name at path: argv[0] is
// the tool's name, as a shell would give it.
func command(name, path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Args[0] = name
	setDeathSignal(cmd)
	return cmd
}

// runOnce runs a tool to its end and returns its exit status and what it
// wrote on stdout and stderr.
func (c *crawl) runOnce(ctx context.Context, name, path string, args ...string) (int, string) {
	cmd := command(name, path, args...)
	cmd.Env = c.env(false)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode(), out.String()
	case err != nil:
		return cli.ExitFailure, fmt.Sprintf("%s: %v\n%s", name, err, out.String())
	}
	return cli.ExitOK, out.String()
}

// env is the tools' environment: this one's, but the frontier named only
// by the flags cqueue crawl gives, GOMAXPROCS=1 for the tools that work on
// one goroutine (so they leave the cores to cfetch and cextract rather
// than wake idle threads on every record: docs/performance.md), and
// cqueue crawl's --config for all.
func (c *crawl) env(oneThread bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "CQUEUE_DB", "CQUEUE_REDIS", "CRAWLUTILS_DB", "CRAWLUTILS_REDIS",
			"CQUEUE_POP_DB", "CQUEUE_POP_REDIS", "CQUEUE_PUSH_DB", "CQUEUE_PUSH_REDIS",
			cli.SupervisorEnv:
			continue
		}
		env = append(env, kv)
	}
	// Each tool also watches this process itself (cli.SupervisorEnv):
	// the kernel's parent-death signal is not delivered everywhere.
	env = append(env, cli.SupervisorEnv+"="+strconv.Itoa(os.Getpid()))
	if storeurl.IsRedisURL(c.o.dsn) {
		env = append(env, "CRAWLUTILS_REDIS="+c.o.dsn)
	}
	if oneThread {
		env = append(env, "GOMAXPROCS=1")
	}
	if c.o.config != "" {
		env = append(env, "CRAWLUTILS_CONFIG="+c.o.config)
	}
	return env
}

// stage is one process of the loop, or a command run in this process
// (inProc, runsInside).
type stage struct {
	name  string   // in messages: "cqueue pop", "cfetch", …
	key   string   // its --TOOL flag, and its stats file
	args  []string // after the program's name
	env   []string
	cmd   *exec.Cmd // a process's
	in    *inProc   // a command's in this process
	stats string
	err   error // from Wait
}

// setStdin, setStdout and setStderr connect the stage to the pipe ends
// (or this command's stdout) it will read and write.
func (s *stage) setStdin(r *os.File) {
	if s.in != nil {
		s.in.stdin = r
	} else {
		s.cmd.Stdin = r
	}
}

func (s *stage) setStdout(w io.Writer) {
	if s.in != nil {
		s.in.stdout = w
	} else {
		s.cmd.Stdout = w
	}
}

func (s *stage) setStderr(w io.Writer) {
	if s.in != nil {
		s.in.stderr = w
	} else {
		s.cmd.Stderr = w
	}
}

// start starts the stage.
func (s *stage) start() error {
	if s.in != nil {
		s.in.start()
		return nil
	}
	return s.cmd.Start()
}

// started reports whether the stage has been started.
func (s *stage) started() bool {
	if s.in != nil {
		return s.in.started
	}
	return s.cmd.Process != nil
}

// wait waits for the stage's end.
func (s *stage) wait() {
	if s.in != nil {
		s.in.wait()
		return
	}
	s.err = s.cmd.Wait()
}

// kill ends the stage at once.
func (s *stage) kill() {
	if s.in != nil {
		s.in.kill()
	} else if s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
}

// drain stops it as a first interrupt would (cli.DrainSignal). A process
// that does not catch the signal yet (its runtime has not started: on a
// busy machine that can take longer than drainReady) is left for the next
// round of passInterrupt, as the signal would end it.
func (s *stage) drain() {
	if s.in != nil {
		s.in.drain()
		return
	}
	if s.cmd.Process == nil {
		return
	}
	if sig, ok := cli.DrainSignal.(syscall.Signal); ok {
		if catches, known := childproc.Catches(s.cmd.Process.Pid, sig); known && !catches {
			return
		}
	}
	s.cmd.Process.Signal(cli.DrainSignal) // an error: it has exited
}

// pid is the stage's process id (this process's, for a command run in it).
func (s *stage) pid() int {
	if s.in != nil {
		return os.Getpid()
	}
	return s.cmd.Process.Pid
}

// status describes how the stage ended, and its exit code (-1: killed).
func (s *stage) status() (code int, desc string) {
	if s.in != nil {
		code := s.in.wait()
		return code, fmt.Sprintf("%s exit %d", s.name, code)
	}
	st := s.cmd.ProcessState
	if st == nil {
		return cli.ExitFailure, fmt.Sprintf("%s: %v", s.name, s.err)
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, fmt.Sprintf("%s killed by signal: %v", s.name, ws.Signal())
	}
	return st.ExitCode(), fmt.Sprintf("%s exit %d", s.name, st.ExitCode())
}

// stages builds the processes of the loop, in pipe order, each rewriting
// its stats file every (never while it runs when 0).
func (c *crawl) stages(every time.Duration) []*stage {
	o := &c.o
	var out []*stage
	add := func(key, name, prog, path string, oneThread bool, args ...string) {
		s := &stage{name: name, key: key, stats: filepath.Join(c.tmp, key+".json")}
		// --stats-to= : cqueue crawl publishes the stats itself, so a
		// $CRAWLUTILS_STATS_TO meant for a hand-built loop is not used.
		common := []string{"-q", "--stats", s.stats, "--stats-to="}
		if every > 0 {
			common = append(common, "--stats-every", every.String())
		}
		if prog == "cqueue" {
			args = append([]string{args[0]}, append(common, args[1:]...)...)
		} else {
			args = append(common, args...)
		}
		s.args, s.env = append(args, o.pass[key]...), c.env(oneThread)
		if runsInside(key) {
			s.in = &inProc{cmd: stageCommand(key), args: s.args, env: lookupIn(s.env)}
		} else {
			s.cmd = command(prog, path, s.args...)
			s.cmd.Env = s.env
		}
		out = append(out, s)
	}
	add("pop", "cqueue pop", "cqueue", c.tools.cqueue, true, append(append([]string{"pop"}, o.childFlags...), "--follow")...)
	if _, ok := o.pass["cthrottle"]; ok {
		// The throttle shares the crawl's store (an SQLite file, or Redis
		// through the environment), unless told --local.
		var store []string
		if !slices.Contains(o.pass["cthrottle"], "--local") {
			store = o.childFlags
		}
		add("cthrottle", "cthrottle", "cthrottle", c.tools.cthrottle, true, store...)
	}
	add("cfetch", "cfetch", "cfetch", c.tools.cfetch, false)
	// The items of unchanged (304) pages too: cexport --changed-only
	// counts them as seen, not exported, so that the items not seen are
	// gone (gone.go), and without it every round has every item.
	extract := []string{"--rules=" + o.rules, "--failures=" + c.failuresPath(), "--extract-unchanged"}
	if c.failuresAppend() {
		extract = append(extract, "--failures-append")
	}
	if o.filesDir != "" {
		extract = append(extract, "--files-dir="+o.filesDir)
	}
	add("cextract", "cextract", "cextract", c.tools.cextract, false, extract...)
	if o.out != "-" {
		// The rules declare the items' fields: the header of a CSV has them all.
		add("cexport", "cexport", "cexport", c.tools.cexport, true, "--output="+o.out, "--rules="+o.rules)
	}
	add("push", "cqueue push", "cqueue", c.tools.cqueue, true, append(append([]string{"push"}, o.childFlags...), o.queueFlags...)...)
	return out
}

// statsEvery is how often the tools rewrite their stats files while the
// progress line (redrawn every second) or --stats-every needs them; for
// --publish-every alone, they rewrite them twice a period.
const statsEvery = 500 * time.Millisecond

// loopResult is how the loop ended.
type loopResult struct {
	stages  []*stage
	started bool
}

// runLoop runs the loop's processes, connected by pipes, in this process's
// group (so a terminal's Ctrl-C reaches each of them, as in a shell
// pipeline), until every one has exited. The first interrupt of this
// process is passed on to each as cli.DrainSignal (passInterrupt): each
// stops as on a first Ctrl-C (pop stops handing out, the rest finish what
// they hold), whether or not the terminal's signal reached them too; a
// second kills them. Their messages are relayed, and their stats files
// read for the progress line.
func (c *crawl) runLoop(ctx context.Context) loopResult {
	var every time.Duration
	switch {
	case !c.o.quiet && cli.IsTerminal(c.tool.Stderr) || c.o.statsFile != "" && c.tool.StatsEvery > 0:
		every = statsEvery
	case c.o.publishEvery > 0:
		// Twice a period: the stats published are at most half a
		// period old, so a snapshot is never taken for late.
		every = c.o.publishEvery / 2
	}
	stages := c.stages(every)
	res := loopResult{stages: stages}
	start := time.Now()
	var parentEnds []*os.File // the pipe ends the children hold
	closeAll := func() {
		for _, f := range parentEnds {
			f.Close()
		}
		parentEnds = nil
	}
	var relays sync.WaitGroup
	fail := func(err error) loopResult {
		c.tool.Printf("%v", err)
		closeAll()
		for _, s := range stages {
			started := s.started()
			s.kill()
			if started {
				s.wait()
			}
		}
		relays.Wait()
		return res
	}
	// The ends a process was given are its copies: this process closes
	// its own once the processes have started. A command run in this
	// process closes the ends it was given itself, when it ends.
	own := func(s *stage, f *os.File) {
		if s.in == nil {
			parentEnds = append(parentEnds, f)
		} else {
			s.in.own(f)
		}
	}
	for i, s := range stages {
		if i > 0 {
			r, w, err := os.Pipe()
			if err != nil {
				return fail(err)
			}
			stages[i-1].setStdout(w)
			s.setStdin(r)
			own(stages[i-1], w)
			own(s, r)
		}
		r, w, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		s.setStderr(w)
		own(s, w)
		relays.Add(1)
		go func() {
			defer relays.Done()
			defer r.Close()
			c.relay(s, r)
		}()
	}
	// With OUT -, the item records; else nothing: push passes on what is
	// no request (a crawl's {"kind":"expired"}, which the account says).
	last := c.stdout
	if c.o.out != "-" {
		last = io.Discard
	}
	stages[len(stages)-1].setStdout(last)
	var startMu sync.Mutex // the abort hook runs on the signal's goroutine
	removeAbort := cli.OnAbort(func() {
		startMu.Lock()
		defer startMu.Unlock()
		for _, s := range stages {
			if s.in == nil {
				s.kill()
			}
		}
	})
	defer removeAbort()
	startMu.Lock()
	for _, s := range stages {
		if err := s.start(); err != nil {
			startMu.Unlock()
			return fail(fmt.Errorf("start %s: %v", s.name, err))
		}
	}
	startMu.Unlock()
	closeAll()
	res.started = true

	done := make(chan struct{})
	go c.passInterrupt(ctx, stages, time.Now(), done)
	if !c.o.quiet {
		c.tool.StartStatusLine(time.Second, c.progress(start))
	}
	stopStats := c.writeAccountEvery()
	removeAbortStats := c.writeAccountOnAbort(stopStats)
	stopPublish := c.publishEvery(stages)
	var wg sync.WaitGroup
	ended := make([]chan struct{}, len(stages))
	for i := range stages {
		ended[i] = make(chan struct{})
	}
	for i, s := range stages {
		wg.Go(func() {
			s.wait()
			close(ended[i])
			c.stageEnded(ctx, stages, ended, i)
		})
	}
	wg.Wait()
	close(done)
	relays.Wait()
	removeAbortStats()
	stopStats()
	stopPublish()
	c.tool.StopStatusLine()
	return res
}

// drainReady is how long after its start a tool most likely handles the
// drain signal. Until its runtime starts, the signal would end it: drain
// waits for the process to catch it where that can be told (Linux's
// /proc); from then until cli.Main sets up its handler, the runtime
// ignores it, and the next round (drainAgain) sends it again.
const drainReady = 50 * time.Millisecond

// drainAgain is how often the drain signal is sent again to each tool
// still running: one that got it before it could handle it gets it
// later. It never counts as an interrupt, so once more does no harm.
const drainAgain = 250 * time.Millisecond

// passInterrupt waits for this command's interrupt, then sends the drain
// signal to every tool of the loop that is still running, until done.
func (c *crawl) passInterrupt(ctx context.Context, stages []*stage, started time.Time, done <-chan struct{}) {
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	if cli.DrainSignal == nil {
		return
	}
	if wait := drainReady - time.Since(started); wait > 0 {
		select {
		case <-done:
			return
		case <-time.After(wait):
		}
	}
	tick := time.NewTicker(drainAgain)
	defer tick.Stop()
	for {
		for _, s := range stages {
			s.drain()
		}
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}

// relay passes the messages a stage writes on its stderr on to this
// command's stderr, one line at a time, naming cqueue's subcommand.
func (c *crawl) relay(s *stage, r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if rest, ok := strings.CutPrefix(line, "cqueue: "); ok && s.name != "cqueue" {
				line = s.name + ": " + rest
			}
			c.tool.Relay(line)
		}
		if err != nil {
			return
		}
	}
}
