//go:build !linux

package cqueue

import "os/exec"

// setDeathSignal: only Linux can have a child killed when its parent dies.
func setDeathSignal(*exec.Cmd) {}
