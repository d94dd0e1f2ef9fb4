package cqueue

import (
	"os/signal"
	"syscall"
)

// ignoreSIGPIPE makes a write to a closed pipe fail with EPIPE instead of
// killing the process.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
