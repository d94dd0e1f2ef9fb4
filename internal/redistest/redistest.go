// Package redistest starts a real, throwaway redis-server, or a Redis
// Cluster, for tests.
//
// Start runs redis-server on a free loopback port with persistence off and
// stops it when the test ends. StartCluster (NewCluster) starts three of
// them in cluster mode and joins them with redis-cli --cluster create;
// SharedCluster shares one cluster among the tests of a binary. Tests
// against Redis use a real server, never a mock: the frontier's and the
// dupefilter's Lua scripts are what is under test, and on a cluster
// whether each keeps to one slot. A test that starts a server is an
// integration test, skipped unless CRAWLUTILS_INTEGRATION=1 (package
// integration). When redis-server (or, for a cluster, redis-cli) is not
// installed the test is skipped, or fails when the environment variable CI
// is set, so CI cannot pass by skipping.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/integration"
)

// Binary is the redis-server program Start runs; the environment variable
// REDIS_SERVER overrides it.
var Binary = "redis-server"

// Start starts a redis-server for t and returns its URL
// ("redis://127.0.0.1:PORT/0"). The server listens on 127.0.0.1 only, keeps
// nothing on disk, and is stopped (and its log shown, if the test failed)
// by t.Cleanup. Start is safe to call from parallel tests; each call starts
// its own server.
func Start(t testing.TB) string {
	t.Helper()
	path := need(t, Binary, "REDIS_SERVER", "redis-server")
	dir := t.TempDir()
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		url, err := start(t, path, dir, port)
		if err == nil {
			return url
		}
		lastErr = err // most likely the port was taken in between; retry
	}
	t.Fatalf("redistest: %v", lastErr)
	return ""
}

// need returns the path of program bin (or of the environment variable
// env's value, when set). A test that runs it is an integration test: it
// is skipped unless CRAWLUTILS_INTEGRATION=1 (package integration). When
// bin is not installed, the test fails if the environment variable CI is
// set, so CI cannot pass by skipping, and is skipped otherwise; pkg is the
// Debian package that provides it.
func need(t testing.TB, bin, env, pkg string) string {
	t.Helper()
	integration.Skip(t, "starts "+pkg)
	if v := os.Getenv(env); v != "" {
		bin = v
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		msg := fmt.Sprintf("redistest: %s not found (install Debian's %s, or set %s): %v", bin, pkg, env, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

func start(t testing.TB, path, dir string, port int) (string, error) {
	p, err := launch(path, dir, port)
	if err != nil {
		return "", err
	}
	t.Cleanup(func() { p.stop(t) })
	return "redis://" + p.addr + "/0", nil
}

// proc is a running redis-server.
type proc struct {
	cmd     *exec.Cmd
	exited  chan error
	addr    string
	logPath string

	// relaunch, when set, starts the same server again (same port,
	// directory and arguments): see Cluster.Restart.
	relaunch func() (*proc, error)

	waitOnce sync.Once
	waitErr  error
	killed   atomic.Bool
}

// wait waits for the process to end (any number of times).
func (p *proc) wait() error {
	p.waitOnce.Do(func() { p.waitErr = <-p.exited })
	return p.waitErr
}

// dead reports whether the process was killed.
func (p *proc) dead() bool { return p.killed.Load() }

// kill kills the process and waits for it (any number of times).
func (p *proc) kill() {
	p.killed.Store(true)
	_ = p.cmd.Process.Kill()
	p.wait()
}

// launch runs redis-server on 127.0.0.1:port with persistence off, its
// files in dir, and any further arguments, and waits until it answers
// PING.
func launch(path, dir string, port int, args ...string) (*proc, error) {
	logPath := filepath.Join(dir, fmt.Sprintf("redis-%d.log", port))
	cmd := exec.Command(path, append([]string{
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--logfile", logPath,
		"--daemonize", "no",
		"--protected-mode", "yes",
	}, args...)...)
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %v", path, err)
	}
	p := &proc{cmd: cmd, exited: make(chan error, 1), addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), logPath: logPath}
	go func() { p.exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ping(p.addr) {
			return p, nil
		}
		select {
		case err := <-p.exited:
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("redis-server exited (%v) before answering PING on %s:\n%s", err, p.addr, tail(log))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-p.exited
			return nil, fmt.Errorf("redis-server did not answer PING on %s within 10s", p.addr)
		}
	}
}

// stop kills the server and, if t failed, shows the end of its log.
func (p *proc) stop(t testing.TB) {
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // if it was paused
	p.kill()
	if t.Failed() {
		if log, err := os.ReadFile(p.logPath); err == nil {
			t.Logf("redis-server log (%s):\n%s", p.addr, tail(log))
		}
	}
}

// ping sends PING in RESP and waits for +PONG.
func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.TrimSpace(line) == "+PONG"
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(b []byte) string {
	const max = 2000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}
