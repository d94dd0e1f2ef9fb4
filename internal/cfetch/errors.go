package cfetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Error codes of a failed fetch: short, stable, documented in docs/cfetch.md.
const (
	ErrDNS               = "dns"
	ErrRefused           = "refused"
	ErrReset             = "reset"
	ErrTimeout           = "timeout"
	ErrTLS               = "tls"
	ErrProtocol          = "protocol"
	ErrTooLarge          = "too_large"
	ErrTruncated         = "truncated"
	ErrDecode            = "decode"
	ErrRedirectLoop      = "redirect_loop"
	ErrTooManyRedirects  = "too_many_redirects"
	ErrOffsiteRedirect   = "offsite_redirect"
	ErrUnsupportedScheme = "unsupported_scheme"
	ErrInvalidURL        = "invalid_url"
	ErrInvalidRequest    = "invalid_request"
	ErrRobots            = "robots"
	ErrCacheMiss         = "cache_miss"
	ErrPrivateAddress    = "private_address"
	ErrNetwork           = "network"
)

// retryableErrors are the codes worth another attempt: the network may
// behave differently next time. DNS failures, bad URLs, oversized bodies,
// broken encodings, redirect problems and refused addresses will not
// change on a retry.
var retryableErrors = map[string]bool{
	ErrRefused: true, ErrReset: true, ErrTimeout: true, ErrTLS: true,
	ErrProtocol: true, ErrTruncated: true, ErrNetwork: true,
}

// MayPass reports whether a failure with this code may not come back on
// a later run: those worth a retry (the network), and a name that did
// not resolve (a DNS outage passes, though a retry within the run would
// not help).
func MayPass(code string) bool { return retryableErrors[code] || code == ErrDNS }

// Unavailable reports whether an HTTP status says the server could not
// answer for now (5xx, 429): a robots.txt so answered disallows all for a
// while, and a page so answered was not fetched.
func Unavailable(status int) bool { return status == http.StatusTooManyRequests || status >= 500 }

// FetchError is why a fetch failed: a Code from the list above and a
// human-readable Detail.
type FetchError struct {
	Code   string
	Detail string
}

func (e *FetchError) Error() string { return e.Code + ": " + e.Detail }

func fetchErr(code, format string, a ...any) *FetchError {
	return &FetchError{Code: code, Detail: fmt.Sprintf(format, a...)}
}

// phase says where in an exchange an error happened: the same EOF means
// "connection closed" before the response and "truncated" in the body.
type phase int

const (
	phaseHeaders phase = iota
	phaseBody
)

// classify maps an error from net/http (or from reading a body) to a code.
func classify(err error, ph phase) *FetchError {
	var fe *FetchError
	if errors.As(err, &fe) {
		return fe
	}
	var internal *internalAddrError
	if errors.As(err, &internal) {
		return &FetchError{ErrPrivateAddress, internal.Error()}
	}
	detail := describeErr(err)
	var (
		dnsErr    *net.DNSError
		recErr    tls.RecordHeaderError
		alertErr  tls.AlertError
		verifyErr *tls.CertificateVerificationError
		authErr   x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		certErr   x509.CertificateInvalidError
		netErr    net.Error
	)
	switch {
	case errors.As(err, &dnsErr):
		return &FetchError{ErrDNS, detail}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &FetchError{ErrRefused, detail}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return &FetchError{ErrReset, detail}
	case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &recErr):
		return &FetchError{ErrProtocol, detail + " (not a TLS server?)"}
	case errors.As(err, &verifyErr), errors.As(err, &authErr), errors.As(err, &hostErr),
		errors.As(err, &certErr), errors.As(err, &alertErr):
		return &FetchError{ErrTLS, detail}
	case isTimeout(err):
		return &FetchError{ErrTimeout, detail}
	case strings.Contains(detail, "Content-Length"):
		return &FetchError{ErrProtocol, contentLengthDetail(detail)}
	case strings.Contains(detail, "malformed"), strings.Contains(detail, "transfer encoding"), strings.Contains(detail, "bare LF"),
		strings.Contains(detail, "invalid CR"), strings.Contains(detail, "headers exceeded"),
		strings.Contains(detail, "too many 1xx"), strings.Contains(detail, "chunk"):
		return &FetchError{ErrProtocol, detail}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if ph == phaseBody {
			return &FetchError{ErrTruncated, "body ended early: " + detail}
		}
		return &FetchError{ErrReset, "connection closed before the response: " + detail}
	case strings.HasPrefix(detail, "tls:"), strings.Contains(detail, "x509:"):
		return &FetchError{ErrTLS, detail}
	case errors.As(err, &netErr):
		return &FetchError{ErrNetwork, detail}
	}
	return &FetchError{ErrNetwork, detail}
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// describeErr drops the `Get "URL": ` prefix url.Error adds (the record
// already says which URL it is about) and net/http's own prefixes.
func describeErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	s := strings.TrimPrefix(err.Error(), "net/http: ")
	return strings.TrimPrefix(s, "HTTP/1.x transport connection broken: ")
}

// repeatedLength reports whether quoted (net/http's %q of a
// Content-Length) is one length listed more than once: "5, 5".
func repeatedLength(quoted string) bool {
	v, err := strconv.Unquote(quoted)
	if err != nil || !strings.Contains(v, ",") {
		return false
	}
	first, _, _ := strings.Cut(v, ",")
	first = strings.TrimSpace(first)
	if _, err := strconv.ParseUint(first, 10, 63); err != nil {
		return false
	}
	for n := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(n) != first {
			return false
		}
	}
	return true
}

// contentLengthDetail says what is wrong with a response's Content-Length
// in our words; net/http says `bad Content-Length "-5"` and `http: message
// cannot contain multiple Content-Length headers; got ["2" "3"]`.
func contentLengthDetail(detail string) string {
	if _, v, ok := strings.Cut(detail, "bad Content-Length "); ok {
		if repeatedLength(v) {
			// RFC 9110 §8.6 lets a recipient read it as the one length;
			// browsers and curl do, Go's HTTP client refuses it.
			return "Content-Length " + v + " lists one length more than once: not read (browsers and curl read it, Go's HTTP client does not)"
		}
		return "invalid Content-Length " + v
	}
	if _, v, ok := strings.Cut(detail, "multiple Content-Length headers; got "); ok {
		v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		return "conflicting Content-Length headers: " + strings.ReplaceAll(v, `" "`, `", "`)
	}
	return detail
}
