package cfetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// recConn is a connection whose bytes, both ways, go to the capture of the
// exchange using it, if any: what went over the wire, after TLS is
// removed. Exchanges on one connection take turns (HTTP/1.x), so each
// capture gets its request and its response alone.
type recConn struct {
	net.Conn
	mu  sync.Mutex
	cap *capture
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if c.cap != nil {
			c.cap.add(&c.cap.resp, p[:n])
		}
		c.mu.Unlock()
	}
	return n, err
}

// Write records p before it sends it: a server can answer, and the
// exchange read its response and detach its capture, before the Write
// returns. What the connection did not take is taken off again, while the
// capture is still the connection's.
func (c *recConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	cp, mark := c.cap, 0
	if cp != nil {
		mark = cp.req.Len()
		cp.add(&cp.req, p)
	}
	c.mu.Unlock()
	n, err := c.Conn.Write(p)
	if n < len(p) && cp != nil {
		c.mu.Lock()
		if c.cap == cp && cp.req.Len() > mark+n {
			cp.req.Truncate(mark + n)
		}
		c.mu.Unlock()
	}
	return n, err
}

// capture is the bytes of one exchange, from the moment the transport
// gives it a connection. Its buffers are written under its connection's
// lock until detach, and are the exchange's own afterwards.
type capture struct {
	conn       *recConn
	req, resp  bytes.Buffer
	max        int64 // bytes kept each way; 0: no limit
	cut        bool  // more came than max
	ip         string
	start      time.Time
	eof        bool // the response body was read to its end
	attached   bool
	unrecorded string // why the exchange could not be recorded, if so
}

func (c *capture) add(b *bytes.Buffer, p []byte) {
	if c.max > 0 && int64(b.Len()+len(p)) > c.max {
		p = p[:max(0, c.max-int64(b.Len()))]
		c.cut = true
	}
	b.Write(p)
}

// warcTrace returns ctx with a trace that attaches c to the connection the
// exchange gets.
func (c *capture) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			c.detach() // an earlier attempt of the transport's
			rc, ok := info.Conn.(*recConn)
			if !ok {
				c.unrecorded = "HTTPS through a proxy is not recorded in the WARC file"
				return
			}
			c.req.Reset()
			c.resp.Reset()
			c.cut, c.unrecorded = false, ""
			c.start = time.Now()
			if a, ok := rc.RemoteAddr().(*net.TCPAddr); ok {
				c.ip = a.IP.String()
			}
			rc.mu.Lock()
			rc.cap = c
			rc.mu.Unlock()
			c.conn, c.attached = rc, true
		},
	})
}

// detach ends the capture: its connection records no more for it.
func (c *capture) detach() {
	if c == nil || c.conn == nil {
		return
	}
	c.conn.mu.Lock()
	if c.conn.cap == c {
		c.conn.cap = nil
	}
	c.conn.mu.Unlock()
	c.conn = nil
}

// watch wraps a response body to learn whether it was read to its end.
func (c *capture) watch(b io.ReadCloser) io.ReadCloser { return &eofBody{b, c} }

type eofBody struct {
	io.ReadCloser
	c *capture
}

func (b *eofBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.c.eof = true
	}
	return n, err
}

// recordConnections makes tr's connections recConns, TLS ones included
// (tr then speaks HTTP/1.1 only: an HTTP/2 connection's frames interleave
// its exchanges).
func recordConnections(tr *http.Transport) {
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &recConn{Conn: c}, nil
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := tr.TLSClientConfig.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(addr)
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(c, cfg)
		hctx := ctx
		if tr.TLSHandshakeTimeout > 0 {
			var cancel context.CancelFunc
			hctx, cancel = context.WithTimeout(ctx, tr.TLSHandshakeTimeout)
			defer cancel()
		}
		if err := tc.HandshakeContext(hctx); err != nil {
			c.Close()
			return nil, err
		}
		return &recConn{Conn: tc}, nil
	}
	tr.ForceAttemptHTTP2 = false
	tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
}
