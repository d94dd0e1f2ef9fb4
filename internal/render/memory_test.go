package render

import (
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestTreeMemory: a process and its children are measured together; a
// process that does not run holds nothing.
func TestTreeMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	if d := descendants(os.Getpid()); !slices.Contains(d, child.Process.Pid) || d[0] != os.Getpid() {
		t.Errorf("descendants of this process %v: want it first and the child %d", d, child.Process.Pid)
	}
	self, tree, alone := processMemory(os.Getpid()), TreeMemory(os.Getpid()), processMemory(child.Process.Pid)
	if self <= 0 || alone <= 0 || tree < self+alone {
		t.Errorf("this process %d bytes, its child %d, the tree %d: want both above 0 and the tree at least their sum", self, alone, tree)
	}
	for _, pid := range []int{0, -1, 4194305} { // above Linux's largest pid
		if m := TreeMemory(pid); m != 0 {
			t.Errorf("TreeMemory(%d) = %d, want 0", pid, m)
		}
	}
}

// TestMemoryDrain: a browser over the limit takes no new page, and is
// ended once the pages in it have ended; then the waiting page goes on.
func TestMemoryDrain(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	var restarts []int64
	r := &Renderer{opts: Options{MaxMemory: 1, OnMemoryRestart: func(used, limit int64) {
		if limit != 1 {
			t.Errorf("limit %d", limit)
		}
		restarts = append(restarts, used)
	}}}
	r.drained = sync.NewCond(&r.mu)
	ended := false
	b := &browser{pid: os.Getpid(), lost: make(chan struct{}), cancel: func() { ended = true }, dataDir: t.TempDir()}
	r.cur = b
	for range 2 {
		if !r.pageStarted() {
			t.Fatal("closed")
		}
	}
	r.pageEnded(b) // over the limit (this process holds more than a byte): drain
	if ended || r.cur != b {
		t.Fatal("the browser was ended with a page still in it")
	}
	third := make(chan bool)
	go func() { third <- r.pageStarted() }()
	select {
	case <-third:
		t.Fatal("a page started in a browser being drained")
	case <-time.After(50 * time.Millisecond): // it would have started by now; a late start is caught below
	}
	r.pageEnded(b)
	if ok := <-third; !ok {
		t.Fatal("the waiting page was refused")
	}
	if !ended || r.cur != nil || len(restarts) != 1 || restarts[0] <= 1 || r.MemoryRestarts() != 1 || r.Restarts() != 1 {
		t.Errorf("ended %v, cur %v, restarts told %v, counted %d (%d in all)", ended, r.cur, restarts, r.MemoryRestarts(), r.Restarts())
	}
	r.mu.Lock()
	if r.active != 1 || r.draining != nil {
		t.Errorf("active %d, draining %v: want the waiting page in, nothing draining", r.active, r.draining)
	}
	r.mu.Unlock()
}
