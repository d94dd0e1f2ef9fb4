//go:build unix

package cli

import (
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ReaderGone reports whether w is a pipe or socket whose reading end is
// closed: a write would fail with EPIPE. On Linux poll says so with
// POLLERR (pipes) or POLLHUP (sockets) without writing anything. A writer
// without a file descriptor is never gone.
func ReaderGone(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(f.Fd())}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
}

// watchable reports whether f is a pipe or a socket, the outputs whose
// reader can go away.
func watchable(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// watchOutput calls gone, once, when the reader of f goes away, checking
// every interval until the returned stop is called.
func watchOutput(f *os.File, interval time.Duration, gone func()) (stop func()) {
	if !watchable(f) {
		return func() {}
	}
	said := false
	return Every(interval, func() {
		if !said && ReaderGone(f) {
			said = true
			gone()
		}
	})
}

// ignoreSIGPIPE makes a write to a pipe whose reader has gone fail with
// EPIPE instead of killing the process (the Go runtime's default for
// stdout and stderr).
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
