//go:build !linux

package cqueue

// ignoreSIGPIPE: only Linux is handled; elsewhere a closed pipe may kill pop.
func ignoreSIGPIPE() {}
