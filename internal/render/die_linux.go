package render

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel send the browser SIGKILL when the process
// that started it ends, kill -9 included.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
