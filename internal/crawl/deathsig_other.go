//go:build !linux

package crawl

import "os/exec"

// setDeathSignal: only Linux can have a child killed when its parent dies.
func setDeathSignal(*exec.Cmd) {}
