package frontier

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestProcessAlive(t *testing.T) {
	if !processAlive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	if processAlive(1<<31 - 2) {
		t.Error("a pid above pid_max is alive")
	}
	if runtime.GOOS != "linux" {
		return
	}
	// A zombie: exited, not yet reaped.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	pid := cmd.Process.Pid
	stat := "/proc/" + strconv.Itoa(pid) + "/stat"
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if b, _ := os.ReadFile(stat); strings.Contains(string(b), ") Z ") {
			break
		}
	}
	if processAlive(pid) {
		t.Error("a zombie is alive")
	}
	cmd.Wait()
	if processAlive(pid) {
		t.Error("a reaped process is alive")
	}
}
