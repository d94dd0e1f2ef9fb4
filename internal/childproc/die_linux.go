package childproc

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes the kernel send cmd's process SIGKILL when the
// process that started it ends, kill -9 included.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
