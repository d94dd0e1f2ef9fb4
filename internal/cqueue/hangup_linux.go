package cqueue

import (
	"io"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// hungUp reports whether w is a pipe or socket whose reader is gone, so a
// pop with nothing to write does not wait forever on a dead pipeline.
func hungUp(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(f.Fd())}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
}

// ignoreSIGPIPE makes a write to a closed pipe fail with EPIPE instead of
// killing the process.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
