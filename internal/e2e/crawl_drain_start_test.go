package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// TestCrawlInterruptedWhileAToolStarts: an interrupt that comes while a
// tool of the loop has not yet started its runtime (on a busy machine that
// can take longer than cqueue crawl's first wait) does not kill it with
// the drain signal, whose default is to end a process: the tool gets the
// signal once it catches it, and the crawl ends interrupted, no tool
// failed. The tool's slow start is a wrapper that sleeps before it
// becomes cfetch.
func TestCrawlInterruptedWhileAToolStarts(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to tell a process that catches the signal")
	}
	bin := binDir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(t.TempDir(), "cfetch-starting")
	wrapper := "#!/usr/bin/env bash\n: > " + cli.ShellQuote(mark) + "\nsleep 1\nexec -a \"$0\" " + cli.ShellQuote(exe) + " \"$@\"\n"
	cfetch := filepath.Join(bin, "cfetch")
	if err := os.Remove(cfetch); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfetch, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	l := newCrawlSite(t, bin, loopSite)
	l.writeFile("seeds.txt", l.url+"/\n")
	c, stdout, stderr := l.startCrawl(`seeds.txt "$RULES" items-0.jsonl`)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cfetch wrapper did not start")
		}
	}
	syscall.Kill(c.Process.Pid, syscall.SIGTERM) // cqueue crawl only: it drains its tools
	r := l.wait(c, stdout, stderr)
	noProcessesLeft(t, c.Process.Pid)
	if strings.Contains(r.stderr, "killed by signal") || strings.Contains(r.stderr, "failed:") {
		t.Fatalf("a tool was killed or failed:\n%s", r.stderr)
	}
	r.want(t, 130, "; run the same command again to resume\n", "cqueue: interrupted: ")
}
