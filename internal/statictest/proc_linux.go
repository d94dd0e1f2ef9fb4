package statictest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has Linux kill the server when the test binary dies
// without running its cleanups, so that no server outlives its tests.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
