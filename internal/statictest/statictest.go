// Package statictest starts, for tests, the static file servers users
// point crawls at, which crawlutils did not write: Python's
// `python3 -m http.server` (in HTTP/1.0, a connection per request, or
// HTTP/1.1 with keep-alive). Go's http.FileServer needs no helper:
// httptest.NewServer(http.FileServer(http.Dir(dir))).
//
// Such a server dates each file to the second (Last-Modified from its
// mtime, however old or far in the future), sends no ETag and no
// Cache-Control, answers 304 to an If-Modified-Since not older than the
// file, redirects /dir to /dir/, lists a directory without index.html, and
// types a file by its extension only (application/octet-stream without
// one): the cases a nightly recrawl of a static site meets.
package statictest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/integration"
)

// PythonBinary is the python3 that Python runs; the environment variable
// PYTHON3 overrides it. Debian's python3 provides it.
var PythonBinary = "python3"

// serving is http.server's first line, with the port it bound.
var serving = regexp.MustCompile(`^Serving HTTP on \S+ port (\d+) `)

// Python serves dir with `python3 -m http.server` on a free port of
// 127.0.0.1 for t, and returns its URL, "http://127.0.0.1:PORT". protocol
// is "" for the server's default (HTTP/1.0: it closes every connection
// after its response) or "HTTP/1.1" (--protocol, Python 3.11: it keeps
// connections open). The server is stopped when t ends; its log (a line
// per request) is shown if t failed. Python skips t unless the
// integration tests are on, and when python3 is not installed (it fails t
// then when the environment variable CI is set).
func Python(t testing.TB, dir, protocol string) string {
	t.Helper()
	integration.Skip(t, "starts python3 -m http.server")
	bin := PythonBinary
	if v := os.Getenv("PYTHON3"); v != "" {
		bin = v
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		msg := fmt.Sprintf("statictest: %s not found (install Debian's python3, or set PYTHON3): %v", bin, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	args := []string{"-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir}
	if protocol != "" {
		args = append(args, "--protocol", protocol)
	}
	cmd := exec.Command(path, append(args, "0")...)
	dieWithParent(cmd)
	var log lockedBuffer
	cmd.Stderr = &log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("statictest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("statictest: %s: %v", path, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("statictest: python3 -m http.server's log:\n%s", log.String())
		}
	})
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				port <- m[1]
			}
		}
		close(port) // exited
	}()
	// The server says where it listens once it does; a minute is a limit
	// for a machine that is very busy, not a wait.
	select {
	case p, ok := <-port:
		if !ok {
			t.Fatalf("statictest: python3 -m http.server exited before serving: %s", log.String())
		}
		return "http://127.0.0.1:" + p
	case <-time.After(time.Minute):
		t.Fatalf("statictest: python3 -m http.server did not say where it serves in a minute: %s", log.String())
	}
	return ""
}

// lockedBuffer is a bytes.Buffer that the server's stderr copier and the
// test may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
