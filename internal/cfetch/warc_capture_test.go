package cfetch

import (
	"net"
	"testing"
)

// answeringConn is a connection whose peer has answered a request, and the
// exchange been finished with, before the Write that sent the request
// returns: what a server on loopback does while the writing goroutine waits
// to be scheduled again.
type answeringConn struct {
	net.Conn
	answered func()
}

func (c *answeringConn) Write(p []byte) (int, error) {
	c.answered()
	return len(p), nil
}

// The request a server answered at once was recorded as an empty block:
// the capture took the bytes only after the Write returned, and by then the
// exchange had read its response and detached it.
func TestWARCCaptureHoldsTheRequestBeforeItIsAnswered(t *testing.T) {
	c := &capture{}
	rc := &recConn{cap: c}
	c.conn = rc
	rc.Conn = &answeringConn{answered: c.detach}
	req := "GET /chunkcut HTTP/1.1\r\nHost: a.example\r\n\r\n"
	if n, err := rc.Write([]byte(req)); n != len(req) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := c.req.String(); got != req {
		t.Errorf("recorded request = %q, want %q", got, req)
	}
}

// shortConn writes only part of what it is given.
type shortConn struct {
	net.Conn
	n int
}

func (c *shortConn) Write(p []byte) (int, error) { return min(c.n, len(p)), net.ErrClosed }

// A request the connection took only part of is recorded as far as it went.
func TestWARCCaptureKeepsOnlyWhatWasWritten(t *testing.T) {
	c := &capture{}
	rc := &recConn{cap: c, Conn: &shortConn{n: 5}}
	c.conn = rc
	rc.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
	if got := c.req.String(); got != "GET /" {
		t.Errorf("recorded request = %q, want %q", got, "GET /")
	}
}
