//go:build !linux

package redistest

import "os/exec"

// dieWithParent does nothing here: only Linux can tie a child's life to
// its parent's.
func dieWithParent(*exec.Cmd) {}
