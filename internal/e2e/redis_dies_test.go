package e2e

import (
	"bufio"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// When Redis dies under a running pop for good, pop retries for
// CRAWLUTILS_REDIS_RETRY (here 3s), then exits non-zero, every line in our
// format: go-redis's own log lines ("redis: 2026/… pool.go:…: connection
// pool: …") never reach the user.
func TestRedisDyingIsReportedInOurFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short")
	}
	url := redistest.Start(t)
	push := command(t, "cqueue", "push", "-q", "--redis", url, "https://a.example/1")
	if out, err := push.CombinedOutput(); err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	pop := command(t, "cqueue", "pop", "-q", "--redis", url, "--follow", "--window", "1")
	pop.Env = append(pop.Env, "CRAWLUTILS_REDIS_RETRY=3s")
	stdout, _ := pop.StdoutPipe()
	var stderr strings.Builder
	pop.Stderr = &stderr
	if err := pop.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatalf("pop handed out nothing: %v\n%s", err, stderr.String())
	}
	// Redis dies: SHUTDOWN NOSAVE.
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0"))
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("SHUTDOWN NOSAVE\r\n"))
	c.Close()
	done := make(chan error, 1)
	go func() { done <- pop.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		pop.Process.Kill()
		<-done
		t.Fatalf("pop still ran 30s after Redis died:\n%s", stderr.String())
	}
	if _, ok := err.(*exec.ExitError); !ok {
		t.Errorf("pop exited with %v after Redis died, want a non-zero status", err)
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		t.Fatal("pop said nothing")
	}
	for _, want := range []string{"retrying for up to 3s", "unreachable for 3s"} {
		if !strings.Contains(msg, want) {
			t.Errorf("pop did not say %q:\n%s", want, msg)
		}
	}
	for _, line := range strings.Split(msg, "\n") {
		if !strings.HasPrefix(line, "cqueue: ") {
			t.Errorf("a line not in our format: %q\nall of stderr:\n%s", line, msg)
		}
	}
	t.Logf("stderr:\n%s", msg)
}
