//go:build unix

package cthrottle

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestHeldAfterTheInputEndsIdles: once the input has ended (a file, or a
// pipe closed), the records still held wait for their slots without
// spinning a CPU (the releaser read the closed channel over and over:
// `cthrottle --rate 1/3s urls.txt` used 3 s of CPU in 3 s). Not parallel,
// so that the process's CPU time is this run's.
func TestHeldAfterTheInputEndsIdles(t *testing.T) {
	in := "https://a.example/1\nhttps://a.example/2\nhttps://a.example/3\n"
	var out, errb bytes.Buffer
	cpu, start := cpuTime(t), time.Now()
	code := execute(context.Background(), []string{"-q", "--local", "--rate", "1/400ms"}, strings.NewReader(in), &out, &errb)
	wall, used := time.Since(start), cpuTime(t)-cpu
	if code != 0 || strings.Count(out.String(), "\n") != 3 {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
	if wall < 800*time.Millisecond {
		t.Fatalf("3 requests at 1/400ms took %v", wall)
	}
	if used > wall/2 {
		t.Errorf("holding 2 records for %v used %v of CPU", wall, used)
	}
}

// TestWaitingForRobotsAfterTheInputEndsIdles: the same for the records
// that wait for their origin's robots.txt once the input has ended (the
// reserver read the closed input over and over).
func TestWaitingForRobotsAfterTheInputEndsIdles(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(800 * time.Millisecond) // a slow server
		w.Write([]byte("User-agent: *\nCrawl-delay: 0.001\n"))
	}))
	defer srv.Close()
	var out, errb bytes.Buffer
	cpu, start := cpuTime(t), time.Now()
	code := execute(context.Background(), []string{"-q", "--local", "--robots", "--rate", "1000/s"}, strings.NewReader(srv.URL+"/a\n"), &out, &errb)
	wall, used := time.Since(start), cpuTime(t)-cpu
	if code != 0 || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
	if used > wall/2 {
		t.Errorf("waiting %v for a robots.txt used %v of CPU", wall, used)
	}
}
