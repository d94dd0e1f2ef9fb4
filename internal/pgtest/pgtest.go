// Package pgtest starts a real, throwaway PostgreSQL server for tests.
//
// Start runs initdb into a new directory and a postgres server on a free
// loopback port, and stops it and removes the directory when the test
// ends. Tests against PostgreSQL use a real server, never a mock: what the
// server accepts, rejects and commits is what is under test. Such a test is
// an integration test, skipped unless CRAWLUTILS_INTEGRATION=1 (package
// integration). The server's programs are Debian's (package postgresql, in
// /usr/lib/postgresql/*/bin; PG_BIN names another directory). When they
// are not installed the test is skipped, or fails when the environment
// variable CI is set, so CI cannot pass by skipping.
//
// PostgreSQL refuses to run as root. Run as root (as CI is), Start runs
// initdb and postgres as the user postgres (which Debian's package
// creates), or else nobody, in a directory under the system's temporary
// directory that this user owns.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/integration"
	"github.com/jackc/pgx/v5"
)

// AptInstall is the command that installs the server's programs.
const AptInstall = "apt-get install -y --no-install-recommends postgresql"

// Options change the server Start runs.
type Options struct {
	// Durable keeps fsync on (the default turns it off: a test is about
	// what the server commits, not about surviving a power loss).
	Durable bool
}

// Server is a running server.
type Server struct {
	// URL connects as the superuser postgres to the database postgres:
	// "postgres://postgres@127.0.0.1:PORT/postgres".
	URL  string
	Port int
	// Dir holds the cluster, the log (server.log) and the socket.
	Dir string

	t       testing.TB
	bin     string
	data    string
	cred    *syscall.Credential
	opts    Options
	logPath string
	cmd     *exec.Cmd
	exited  chan error // receives once the running postgres exits
}

// Stop stops the server (a fast shutdown: sessions are ended, nothing
// waits), as a database that goes away mid-run. Restart starts it again.
// Stopping a stopped server does nothing. Not safe for concurrent use.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// Restart starts the stopped server again, on the same port and with the
// same data, and waits until it takes queries.
func (s *Server) Restart() error {
	if s.cmd != nil {
		return nil
	}
	return s.run()
}

// Start starts a server for t with the default Options and returns its URL.
func Start(t testing.TB) string {
	t.Helper()
	return StartWith(t, Options{}).URL
}

// StartWith starts a server for t. It is stopped (its log shown if the test
// failed) and its directory removed by t.Cleanup. Each call starts a
// server of its own. Unless CRAWLUTILS_INTEGRATION=1 it skips t.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	integration.Skip(t, "starts PostgreSQL")
	bin, err := BinDir()
	if err != nil {
		msg := fmt.Sprintf("pgtest: %v (install Debian's postgresql: %s; or set PG_BIN)", err, AptInstall)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cred, err := credential()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = dir // the test's own may be closed to that user
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		s := &Server{URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", port), Port: port, Dir: dir,
			t: t, bin: bin, data: data, cred: cred, opts: o, logPath: filepath.Join(dir, fmt.Sprintf("server-%d.log", port))}
		err = s.run()
		if err == nil {
			t.Cleanup(func() {
				s.Stop()
				if t.Failed() {
					if log, err := os.ReadFile(s.logPath); err == nil {
						t.Logf("postgres log (port %d):\n%s", port, tail(log))
					}
				}
			})
			return s
		}
		lastErr = err // most likely the port was taken in between; retry
	}
	t.Fatalf("pgtest: %v", lastErr)
	return nil
}

// BinDir returns the directory of initdb and postgres: PG_BIN, or the
// newest /usr/lib/postgresql/*/bin.
func BinDir() (string, error) {
	if d := os.Getenv("PG_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err != nil {
			return "", fmt.Errorf("PG_BIN=%s: %v", d, err)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server in /usr/lib/postgresql/*/bin")
}

// version is the major version of a /usr/lib/postgresql/N/bin directory.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// credential is the user the server runs as: nil (this process's) unless
// this process is root, which PostgreSQL refuses.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("running as root, and there is no user postgres or nobody to run the server as")
}

// run starts postgres and waits until it takes queries.
func (s *Server) run() error {
	logf, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return err
	}
	defer logf.Close()
	args := []string{"-D", s.data, "-p", strconv.Itoa(s.Port), "-k", s.Dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=50"}
	if !s.opts.Durable {
		args = append(args, "-c", "fsync=off", "-c", "full_page_writes=off")
	}
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	cmd.Dir = s.Dir
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %v", cmd.Path, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for !ready(s.URL) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(s.logPath)
			return fmt.Errorf("postgres exited (%v) before accepting connections on port %d:\n%s", err, s.Port, tail(log))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("postgres did not accept connections on port %d within 30s", s.Port)
		}
	}
	s.cmd, s.exited = cmd, exited
	return nil
}

// ready reports whether the server at url takes a query.
func ready(url string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return false
	}
	defer c.Close(ctx)
	return c.Ping(ctx) == nil
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
	const max = 3000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}
