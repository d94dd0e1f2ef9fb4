package demosite

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// failureKind is how a product page fails the first time it is requested
// (any method) since New or Reset; every later request gets the page.
type failureKind int

const (
	failNone          failureKind = iota
	fail503RetryAfter             // 503 with the Retry-After of Options.RetryAfter
	fail503                       // 503 without Retry-After
	fail500                       // 500
	failReset                     // connection reset, no response at all
)

func (k failureKind) String() string {
	switch k {
	case fail503RetryAfter:
		return "503 with Retry-After"
	case fail503:
		return "503"
	case fail500:
		return "500"
	case failReset:
		return "connection reset"
	}
	return "none"
}

// Options.RetryAfter values with a meaning of their own.
const (
	// DefaultRetryAfter is the Retry-After of a zero Options.RetryAfter.
	DefaultRetryAfter = time.Second
	// NoRetryAfter as Options.RetryAfter sends the 503s of the Retry-After
	// class without the header (like the other 503 class).
	NoRetryAfter time.Duration = -1
	// RetryAfterZero as Options.RetryAfter sends "Retry-After: 0".
	RetryAfterZero time.Duration = -2
)

// retryAfterHeader returns the Retry-After header value for d (an
// Options.RetryAfter after withDefaults, so whole seconds) and the delay it
// asks for; "" when no header is sent.
func retryAfterHeader(d time.Duration) (string, time.Duration) {
	switch {
	case d == RetryAfterZero:
		return "0", 0
	case d < 0:
		return "", 0
	}
	return strconv.FormatInt(int64(d/time.Second), 10), d
}

var unavailableResponse = sync.OnceValue(func() *response {
	return htmlResponse(http.StatusServiceUnavailable, renderError(http.StatusServiceUnavailable, "The server is busy. Please try again."))
})

var internalErrorResponse = sync.OnceValue(func() *response {
	return htmlResponse(http.StatusInternalServerError, renderError(http.StatusInternalServerError, "Something went wrong on our side. Please try again."))
})

// serveFailure answers a request with a one-time failure of kind kind.
func (s *Site) serveFailure(w http.ResponseWriter, r *http.Request, kind failureKind) {
	switch kind {
	case fail503RetryAfter:
		if s.retryAfter != "" {
			w.Header().Set("Retry-After", s.retryAfter)
		}
		send(w, r, unavailableResponse())
	case fail503:
		send(w, r, unavailableResponse())
	case fail500:
		send(w, r, internalErrorResponse())
	case failReset:
		if x, ok := w.(*exchange); ok {
			x.count() // before the client sees the reset
		}
		resetConnection(w)
	}
}

// resetConnection closes the request's connection without an answer,
// with a TCP RST (SO_LINGER 0) rather than a FIN. Where the connection
// cannot be taken over (HTTP/2, httptest.ResponseRecorder) it panics with
// http.ErrAbortHandler, which net/http turns into an aborted response.
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	conn.Close()
}
