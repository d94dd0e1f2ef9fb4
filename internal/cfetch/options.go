package cfetch

import (
	"fmt"
	"net/http"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// Options are cfetch's settings. The zero value is not useful: start from
// DefaultOptions and call Validate before use.
type Options struct {
	// Concurrency is the number of requests in flight (CONCURRENT_REQUESTS).
	Concurrency int
	// UserAgent is sent when neither the request nor Headers set one
	// (USER_AGENT).
	UserAgent string
	// Headers are sent with every request unless the request sets the same
	// header (DEFAULT_REQUEST_HEADERS).
	Headers http.Header

	// Timeout bounds one attempt: connect, redirects, headers and body
	// (DOWNLOAD_TIMEOUT).
	Timeout time.Duration
	// ConnectTimeout bounds the TCP connect and the TLS handshake.
	ConnectTimeout time.Duration
	// MaxSize is the largest body accepted, on the wire and decompressed
	// (DOWNLOAD_MAXSIZE); 0 means no limit.
	MaxSize int64
	// WarnSize adds a warning to bodies larger than this (DOWNLOAD_WARNSIZE);
	// 0 means never.
	WarnSize int64

	// MaxRedirects is how many redirects one attempt follows
	// (REDIRECT_MAX_TIMES); FollowRedirects false returns the 3xx itself
	// (REDIRECT_ENABLED).
	MaxRedirects    int
	FollowRedirects bool

	// Retries is how many times a request is retried in all (RETRY_TIMES);
	// a request's own "retries" field counts against it.
	Retries int
	// RetryCodes are the HTTP statuses that are retried (RETRY_HTTP_CODES).
	RetryCodes []int
	// RetryBackoff is the first retry's delay, doubled for each further
	// retry, ±50% jitter, at most MaxBackoff.
	RetryBackoff time.Duration
	// RetryAfterMax is the longest Retry-After (on 429 and 503) honoured;
	// a longer one ends the retries.
	RetryAfterMax time.Duration

	// Insecure skips TLS certificate verification.
	Insecure bool
}

// MaxBackoff caps the exponential retry backoff.
const MaxBackoff = 10 * time.Second

// DefaultUserAgent is the User-Agent sent when nothing else is set.
func DefaultUserAgent() string {
	return "crawlutils/" + cli.Version + " (+https://github.com/crawlutils/crawlutils)"
}

// DefaultAccept is Scrapy's default Accept header.
const DefaultAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// AcceptEncoding lists the content codings cfetch decodes.
const AcceptEncoding = "gzip, deflate, br, zstd"

// DefaultOptions returns the settings cfetch runs with when nothing is set.
func DefaultOptions() Options {
	return Options{
		Concurrency:     16,
		UserAgent:       DefaultUserAgent(),
		Headers:         http.Header{},
		Timeout:         60 * time.Second,
		ConnectTimeout:  10 * time.Second,
		MaxSize:         32 << 20,
		WarnSize:        8 << 20,
		MaxRedirects:    20,
		FollowRedirects: true,
		Retries:         2,
		RetryCodes:      []int{500, 502, 503, 504, 522, 524, 408, 429},
		RetryBackoff:    250 * time.Millisecond,
		RetryAfterMax:   60 * time.Second,
	}
}

// maxConcurrency keeps a typo (--concurrency 1000000) from exhausting file
// descriptors.
const maxConcurrency = 10000

// Validate checks the settings; its errors name the flag and the valid values.
func (o *Options) Validate() error {
	switch {
	case o.Concurrency < 1 || o.Concurrency > maxConcurrency:
		return fmt.Errorf("--concurrency must be between 1 and %d (got %d)", maxConcurrency, o.Concurrency)
	case o.Timeout <= 0:
		return fmt.Errorf("--timeout must be a positive duration such as 30s or 2m (got %s)", o.Timeout)
	case o.ConnectTimeout <= 0:
		return fmt.Errorf("--connect-timeout must be a positive duration such as 10s (got %s)", o.ConnectTimeout)
	case o.MaxSize < 0:
		return fmt.Errorf("--max-size must be a size such as 32MiB, or 0 for no limit (got %d)", o.MaxSize)
	case o.WarnSize < 0:
		return fmt.Errorf("--warn-size must be a size such as 8MiB, or 0 for no warning (got %d)", o.WarnSize)
	case o.MaxRedirects < 0:
		return fmt.Errorf("--max-redirects must be 0 or more (got %d)", o.MaxRedirects)
	case o.Retries < 0:
		return fmt.Errorf("--retries must be 0 or more (got %d)", o.Retries)
	case o.RetryBackoff < 0:
		return fmt.Errorf("--retry-backoff must be a duration of 0 or more such as 250ms (got %s)", o.RetryBackoff)
	case o.RetryAfterMax < 0:
		return fmt.Errorf("--retry-after-max must be a duration of 0 or more such as 60s (got %s)", o.RetryAfterMax)
	}
	for _, c := range o.RetryCodes {
		if c < 100 || c > 599 {
			return fmt.Errorf("--retry-codes must list HTTP statuses between 100 and 599 (got %d)", c)
		}
	}
	for name, vals := range o.Headers {
		if err := checkHeader(name, vals); err != nil {
			return fmt.Errorf("--header: %v", err)
		}
	}
	return nil
}
