//go:build !linux

package render

import "os/exec"

// dieWithParent cannot ask the kernel here: the browser is ended by
// cfetch's own exit (SIGINT, SIGTERM, the end of its input), not after a
// kill -9.
func dieWithParent(*exec.Cmd) {}
