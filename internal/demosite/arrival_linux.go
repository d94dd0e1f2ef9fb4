package demosite

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ArrivalListener wraps a TCP listener so that the site reads the time a
// request reached the machine from the kernel (SO_TIMESTAMPNS: when the
// packet came in), not from when the site's goroutine got to it: on a
// loaded machine the site itself may run late, and a gap between two
// requests measured by its clock would look shorter than it was. Serve it
// with ArrivalContext as the http.Server's ConnContext. Where the socket
// option is refused, connections are served as they are and the site's
// clock is used.
//
// The option is set on the listening socket too, whose accepted sockets
// inherit it: a request that arrives before Accept returns (a loaded
// machine) is timestamped all the same.
func ArrivalListener(l net.Listener) net.Listener {
	if tl, ok := l.(*net.TCPListener); ok {
		if raw, err := tl.SyscallConn(); err == nil {
			raw.Control(func(fd uintptr) {
				unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
			})
		}
	}
	return arrivalListener{l}
}

type arrivalListener struct{ net.Listener }

func (l arrivalListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c, nil
	}
	return &arrivalConn{TCPConn: tc, raw: raw}, nil
}

// arrivalConn reads with recvmsg and keeps the kernel's receive time of
// the data of its latest read.
type arrivalConn struct {
	*net.TCPConn
	raw  syscall.RawConn
	last atomic.Int64 // unix nanoseconds; 0 before the first data
}

func (c *arrivalConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var (
		n, oobn int
		rerr    error
		oob     [128]byte
	)
	err := c.raw.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), p, oob[:], 0)
		return rerr != unix.EAGAIN && rerr != unix.EINTR
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: rerr}
	}
	if n == 0 {
		return 0, io.EOF
	}
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
				ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0])) // the kernel aligns it
				c.last.Store(ts.Nano())
			}
		}
	}
	return n, nil
}

type arrivalKey struct{}

// ArrivalContext is the http.Server ConnContext that lets the site find a
// connection's kernel receive times (see ArrivalListener).
func ArrivalContext(ctx context.Context, c net.Conn) context.Context {
	if ac, ok := c.(*arrivalConn); ok {
		return context.WithValue(ctx, arrivalKey{}, ac)
	}
	return ctx
}

// arrivalTime is when the request being served on ctx's connection reached
// the machine, by the kernel's clock, or false when unknown.
func arrivalTime(ctx context.Context) (time.Time, bool) {
	ac, ok := ctx.Value(arrivalKey{}).(*arrivalConn)
	if !ok {
		return time.Time{}, false
	}
	ns := ac.last.Load()
	if ns == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}
