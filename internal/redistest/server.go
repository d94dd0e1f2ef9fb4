package redistest

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a redis-server a test can stop, resume, kill and restart, for
// fault tests: see StartServer.
type Server struct {
	t    testing.TB
	path string
	dir  string
	port int
	args []string
	p    *proc
}

// StartServer starts a redis-server as Start does, with args added to its
// command line (e.g. "--appendonly", "yes", "--appendfsync", "always"),
// and returns it; it is stopped by t.Cleanup.
func StartServer(t testing.TB, args ...string) *Server {
	t.Helper()
	path := need(t, Binary, "REDIS_SERVER", "redis-server")
	s := &Server{t: t, path: path, dir: t.TempDir(), args: args}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		p, err := launch(path, s.dir, port, args...)
		if err == nil {
			s.p, s.port = p, port
			t.Cleanup(func() { s.p.stop(t) })
			return s
		}
		lastErr = err
	}
	t.Fatalf("redistest: %v", lastErr)
	return nil
}

// URL is the server's URL, redis://127.0.0.1:PORT/0.
func (s *Server) URL() string { return "redis://" + s.p.addr + "/0" }

// Pause stops the server's process (SIGSTOP): connections stay open and
// new ones are accepted by the kernel, but nothing answers.
func (s *Server) Pause() { syscall.Kill(s.p.cmd.Process.Pid, syscall.SIGSTOP) }

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() { syscall.Kill(s.p.cmd.Process.Pid, syscall.SIGCONT) }

// Kill kills the server (SIGKILL): what it had not written to disk is lost.
func (s *Server) Kill() { s.p.kill() }

// Restart starts a killed server again on the same port and directory,
// so that it loads what it wrote there (its append-only file, with
// "--appendonly yes").
func (s *Server) Restart() {
	s.t.Helper()
	p, err := launch(s.path, s.dir, s.port, s.args...)
	if err != nil {
		s.t.Fatalf("redistest: restart: %v", err)
	}
	s.p = p
}

// Addr is the server's address, 127.0.0.1:PORT.
func (s *Server) Addr() string { return s.p.addr }

// Dir is the server's directory (--dir): its append-only files are in
// Dir()/appendonlydir, named by the manifest there.
func (s *Server) Dir() string { return s.dir }

// StartReplica starts a redis-server replicating master (replicaof) and
// waits until its link to the master is up and it has loaded the
// master's data; it is stopped by t.Cleanup.
func StartReplica(t testing.TB, master *Server) *Server {
	t.Helper()
	host, port, _ := strings.Cut(master.Addr(), ":")
	r := StartServer(t, "--replicaof", host, port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := Do(r.Addr(), "INFO", "replication")
		if err == nil && strings.Contains(info, "master_link_status:up") {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: replica %s of %s: link not up within 10s (%v): %s", r.Addr(), master.Addr(), err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
