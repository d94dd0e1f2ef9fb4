package cqueue

import (
	"os/exec"
	"syscall"
)

// setDeathSignal has the kernel kill cmd when this process dies, so that a
// cqueue crawl killed on its own (kill -9 of its pid) does not leave its
// loop running without it: what the loop held goes back to the queue as
// after any kill, and the rerun starts at once.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
