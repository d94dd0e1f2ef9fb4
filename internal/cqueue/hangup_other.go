//go:build !linux

package cqueue

import "io"

// hungUp cannot tell here: a dead pipeline is noticed at the next write.
func hungUp(io.Writer) bool { return false }

// ignoreSIGPIPE: only Linux is handled; elsewhere a closed pipe may kill pop.
func ignoreSIGPIPE() {}
