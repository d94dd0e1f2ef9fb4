package e2e

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// command returns an exec.Cmd for one of the commands TestMain registers:
// the test binary, linked under the command's name.
func command(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, args...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	return cmd
}

// slow is a server that answers every request but /robots.txt after delay,
// or when released, and counts the requests it holds.
type slow struct {
	*httptest.Server
	held atomic.Int64
}

func slowServer(t *testing.T, delay time.Duration) (*slow, chan struct{}) {
	release := make(chan struct{})
	s := &slow{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r) // no rules: allow all, at once
			return
		}
		s.held.Add(1)
		defer s.held.Add(-1)
		select {
		case <-time.After(delay):
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "<h1>slow</h1>")
	}))
	t.Cleanup(s.Close)
	return s, release
}

// TestFirstSignalDrainsInFlight: the first SIGINT stops cfetch from taking
// new requests, lets the ones in flight finish and writes their records,
// then exits 130 — while its input is still open.
func TestFirstSignalDrainsInFlight(t *testing.T) {
	srv, release := slowServer(t, time.Minute)
	cmd := command(t, "cfetch", "-q", "--concurrency", "2")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, srv.URL+"/a\n"+srv.URL+"/b\n")
	waitForRequests(t, srv, 2)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	io.WriteString(stdin, srv.URL+"/c\n") // after the signal: not taken
	close(release)
	lines := readLines(stdout)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130; stderr: %s", err, stderr.String())
	}
	if len(lines) != 2 {
		t.Fatalf("got %d records, want the 2 in flight:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if !strings.Contains(l, `"status":200`) || strings.Contains(l, "/c\"") {
			t.Errorf("unexpected record %s", l)
		}
	}
}

// TestSecondSignalExitsAtOnce: a second SIGINT does not wait for the
// requests in flight.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	srv, _ := slowServer(t, time.Minute)
	cmd := command(t, "cfetch", "-q")
	stdin, _ := cmd.StdinPipe()
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, srv.URL+"/a\n")
	waitForRequests(t, srv, 1)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("exit = %v, want 130", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cfetch did not exit after a second SIGINT")
	}
}

// waitForRequests waits until the server holds n requests.
func waitForRequests(t *testing.T, srv *slow, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for srv.held.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the server holds %d requests, want %d", srv.held.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readLines(r io.Reader) []string {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
