// Package redistest starts a real, throwaway redis-server for tests.
//
// Start runs redis-server on a free loopback port with persistence off and
// stops it when the test ends. Tests against Redis use a real server, never
// a mock: the frontier's and the dupefilter's Lua scripts are what is under
// test. When redis-server is not installed the test is skipped, or fails
// when the environment variable CI is set, so CI cannot pass by skipping.
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
	"testing"
	"time"
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
	bin := Binary
	if env := os.Getenv("REDIS_SERVER"); env != "" {
		bin = env
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		msg := fmt.Sprintf("redistest: %s not found (install Debian's redis-server, or set REDIS_SERVER): %v", bin, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
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

func start(t testing.TB, path, dir string, port int) (string, error) {
	logPath := filepath.Join(dir, fmt.Sprintf("redis-%d.log", port))
	cmd := exec.Command(path,
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--logfile", logPath,
		"--daemonize", "no",
		"--protected-mode", "yes",
	)
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %v", path, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ping(addr) {
			break
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath)
			return "", fmt.Errorf("redis-server exited (%v) before answering PING on %s:\n%s", err, addr, tail(log))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return "", fmt.Errorf("redis-server did not answer PING on %s within 10s", addr)
		}
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			if log, err := os.ReadFile(logPath); err == nil {
				t.Logf("redis-server log (%s):\n%s", addr, tail(log))
			}
		}
	})
	return "redis://" + addr + "/0", nil
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
