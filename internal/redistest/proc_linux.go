package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has Linux kill the server when the test binary dies
// without running its cleanups (killed, timed out, or a TestMain that
// forgot StopShared), so that no redis-server outlives its tests.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
