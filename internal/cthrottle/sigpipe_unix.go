//go:build unix

package cthrottle

import (
	"os/signal"
	"syscall"
)

// ignoreSIGPIPE makes a write to a closed pipe fail with EPIPE instead of
// killing the process: after an interrupt the reader downstream (cfetch)
// may be gone, and cthrottle still exits 130 with its account.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
