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
	"syscall"
	"testing"
)

func TestClassify(t *testing.T) {
	op := func(err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: err}}
	}
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: "http://x/", Err: err} }
	tests := []struct {
		name string
		err  error
		ph   phase
		want string
	}{
		{"dns", wrap(&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}), phaseHeaders, ErrDNS},
		{"dns timeout is dns", wrap(&net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}), phaseHeaders, ErrDNS},
		{"refused", wrap(op(syscall.ECONNREFUSED)), phaseHeaders, ErrRefused},
		{"reset", wrap(op(syscall.ECONNRESET)), phaseHeaders, ErrReset},
		{"broken pipe", wrap(op(syscall.EPIPE)), phaseHeaders, ErrReset},
		{"deadline", wrap(context.DeadlineExceeded), phaseHeaders, ErrTimeout},
		{"dial timeout", wrap(&net.OpError{Op: "dial", Err: os.ErrDeadlineExceeded}), phaseHeaders, ErrTimeout},
		{"scheme mismatch", wrap(http.ErrSchemeMismatch), phaseHeaders, ErrProtocol},
		{"not TLS", wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), phaseHeaders, ErrProtocol},
		{"unknown authority", wrap(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), phaseHeaders, ErrTLS},
		{"hostname", wrap(x509.HostnameError{Certificate: &x509.Certificate{}, Host: "x"}), phaseHeaders, ErrTLS},
		{"alert", wrap(tls.AlertError(40)), phaseHeaders, ErrTLS},
		{"malformed", wrap(fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", errors.New(`malformed HTTP status code "x"`))), phaseHeaders, ErrProtocol},
		{"EOF before the response", wrap(io.EOF), phaseHeaders, ErrReset},
		{"EOF in the body", io.ErrUnexpectedEOF, phaseBody, ErrTruncated},
		{"already classified", &FetchError{Code: ErrTooLarge, Detail: "x"}, phaseBody, ErrTooLarge},
		{"anything else", wrap(errors.New("something odd")), phaseHeaders, ErrNetwork},
	}
	for _, tt := range tests {
		fe := classify(tt.err, tt.ph)
		if fe.Code != tt.want || fe.Detail == "" {
			t.Errorf("%s: classify(%v) = %v, want %s", tt.name, tt.err, fe, tt.want)
		}
	}
	if d := classify(wrap(errors.New("boom")), phaseHeaders).Detail; d != "boom" {
		t.Errorf("detail %q keeps the url.Error prefix", d)
	}
}

// TestContentLengthDetail: a Content-Length net/http refuses is named in
// our words; one length listed more than once in one header is told
// apart, as browsers and curl read it.
func TestContentLengthDetail(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`bad Content-Length "ten"`, `invalid Content-Length "ten"`},
		{`bad Content-Length "5, 6"`, `invalid Content-Length "5, 6"`},
		{`bad Content-Length ", "`, `invalid Content-Length ", "`},
		{`bad Content-Length "-5, -5"`, `invalid Content-Length "-5, -5"`},
		{`bad Content-Length "5, 5"`, `Content-Length "5, 5" lists one length more than once: not read (browsers and curl read it, Go's HTTP client does not)`},
		{`bad Content-Length "7,7 ,7"`, `Content-Length "7,7 ,7" lists one length more than once: not read (browsers and curl read it, Go's HTTP client does not)`},
		{`http: message cannot contain multiple Content-Length headers; got ["2" "3"]`, `conflicting Content-Length headers: "2", "3"`},
	} {
		if got := contentLengthDetail(tc.in); got != tc.want {
			t.Errorf("contentLengthDetail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
