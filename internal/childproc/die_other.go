//go:build !linux

package childproc

import (
	"os/exec"
	"syscall"
)

// DieWithParent cannot ask the kernel here: the child is ended by its
// parent's own exit (a signal, the end of its input), not after a kill -9.
func DieWithParent(*exec.Cmd) {}

// Catches cannot tell here: known is false.
func Catches(int, syscall.Signal) (catches, known bool) { return false, false }
