package cfetch

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// newClient returns the one http.Client of a run. Redirects are not followed
// by the client (Fetcher follows them itself to record the chain); bodies are
// not decompressed by the transport (Fetcher decodes gzip, deflate, br and
// zstd itself); timeouts come from each request's context, plus the connect,
// TLS-handshake and response-header limits set here.
func newClient(o *Options) *http.Client {
	dialer := &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{InsecureSkipVerify: o.Insecure},
		TLSHandshakeTimeout:    o.ConnectTimeout,
		ResponseHeaderTimeout:  o.Timeout,
		ExpectContinueTimeout:  time.Second,
		DisableCompression:     true,
		MaxIdleConns:           max(100, 4*o.Concurrency),
		MaxIdleConnsPerHost:    o.Concurrency,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// latencyTrace measures one exchange the way AutoThrottle does: from the
// start of the TCP connect (or, on a reused connection, from the request
// being written) to the first response byte.
type latencyTrace struct {
	mu           sync.Mutex
	connectStart time.Time
	wrote        time.Time
	firstByte    time.Time
	reused       bool
}

func (lt *latencyTrace) withTrace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectStart: func(string, string) {
			lt.mu.Lock()
			if lt.connectStart.IsZero() {
				lt.connectStart = time.Now()
			}
			lt.mu.Unlock()
		},
		GotConn: func(info httptrace.GotConnInfo) {
			lt.mu.Lock()
			lt.reused = info.Reused
			lt.mu.Unlock()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			lt.mu.Lock()
			lt.wrote = time.Now()
			lt.mu.Unlock()
		},
		GotFirstResponseByte: func() {
			lt.mu.Lock()
			lt.firstByte = time.Now()
			lt.mu.Unlock()
		},
	})
}

// latency returns the measured latency, or 0 when no response byte came.
func (lt *latencyTrace) latency() time.Duration {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.firstByte.IsZero() {
		return 0
	}
	start := lt.connectStart
	if lt.reused || start.IsZero() {
		start = lt.wrote
	}
	if start.IsZero() || lt.firstByte.Before(start) {
		return 0
	}
	return lt.firstByte.Sub(start)
}
