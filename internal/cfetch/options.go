package cfetch

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/hostpace"
	"github.com/crawlutils/crawlutils/internal/httpcache"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/render"
	"github.com/crawlutils/crawlutils/internal/robots"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// Options are cfetch's settings. The zero value is not useful: start from
// DefaultOptions and call Validate before use.
type Options struct {
	// Getenv reads the environment (HTTP_PROXY, HTTPS_PROXY, NO_PROXY);
	// nil reads the process's.
	Getenv func(string) string
	// Concurrency is the number of requests in flight (CONCURRENT_REQUESTS).
	Concurrency int
	// PerHost is the number of requests in flight to one host:port
	// (CONCURRENT_REQUESTS_PER_DOMAIN).
	PerHost int
	// ReadAhead is the most input records held at once (queued, in flight
	// or waiting for a retry); 0 means max(1024, 16 × Concurrency). Past
	// 4 × Concurrency held, cfetch reads on only while requests could run
	// but none can start (their hosts are busy, delayed or paused), so that
	// a slow host does not stall the others; at ReadAhead it stops reading.
	ReadAhead int

	// Delay is the minimum time between two request starts on one host
	// (DOWNLOAD_DELAY); RandomDelay multiplies it by a random factor between
	// 0.5 and 1.5 each time (RANDOMIZE_DOWNLOAD_DELAY).
	Delay       time.Duration
	RandomDelay bool

	// AutoThrottle adapts each host's delay to its latency
	// (AUTOTHROTTLE_ENABLED and the AUTOTHROTTLE_* settings).
	AutoThrottle       bool
	ThrottleStart      time.Duration
	ThrottleMax        time.Duration
	ThrottleTarget     float64
	ThrottleDebug      bool
	RobotsObey         bool   // ROBOTSTXT_OBEY
	RobotsAgent        string // ROBOTSTXT_USER_AGENT; "" is the product token of UserAgent
	Cookies            bool   // COOKIES_ENABLED
	Referer            bool   // REFERER_ENABLED: send a request's "referer" as its Referer header
	MetaRefresh        bool   // METAREFRESH_ENABLED
	MetaRefreshMaxWait time.Duration

	// UserAgent is sent when neither the request nor Headers set one
	// (USER_AGENT).
	UserAgent string
	// Headers are sent with every request unless the request sets the same
	// header (DEFAULT_REQUEST_HEADERS).
	Headers http.Header
	// Proxy, when set, is used for every request that does not name its
	// own "proxy"; otherwise HTTP_PROXY, HTTPS_PROXY and NO_PROXY apply.
	Proxy *url.URL
	// AuthUser and AuthPass are sent as basic auth to AuthDomain and its
	// subdomains (HttpAuthMiddleware's http_user, http_pass and
	// http_auth_domain); AuthDomain "" means the host of the first request.
	AuthUser, AuthPass, AuthDomain string
	// Resolve maps "host:port" (host may be "*") to addresses, like curl's
	// --resolve. Those hosts connect to those addresses even when they are
	// internal (private.go).
	Resolve map[string][]string
	// AllowPrivate lets every request connect to loopback, link-local,
	// private and other internal addresses; by default only a crawl that
	// starts on one may (private.go).
	AllowPrivate bool
	// DNSCacheSize is how many host names keep their addresses
	// (DNSCACHE_SIZE); 0 disables the cache (DNSCACHE_ENABLED=False).
	DNSCacheSize int
	DNSTimeout   time.Duration // DNS_TIMEOUT
	HTTP2        bool

	// Timeout bounds one exchange: connect, request, headers and body
	// (DOWNLOAD_TIMEOUT).
	Timeout time.Duration
	// ConnectTimeout bounds the TCP connect and the TLS handshake.
	ConnectTimeout time.Duration
	// HeaderTimeout bounds the wait for the response headers once the
	// request is sent; 0 means Timeout.
	HeaderTimeout time.Duration
	// MaxSize is the largest body accepted, on the wire and decompressed
	// (DOWNLOAD_MAXSIZE); 0 means no limit.
	MaxSize int64
	// WarnSize adds a warning to bodies larger than this (DOWNLOAD_WARNSIZE);
	// 0 means never.
	WarnSize int64
	// MaxMemory is the most memory the bodies in flight may hold at once:
	// as read, converted to UTF-8, and in their records until written
	// (budget); 0 means no limit. One response larger than all of it still
	// completes, alone.
	MaxMemory int64

	// MaxRedirects is how many redirects one request follows
	// (REDIRECT_MAX_TIMES); FollowRedirects false returns the 3xx itself
	// (REDIRECT_ENABLED).
	MaxRedirects    int
	FollowRedirects bool
	// RedirectMode says who follows a redirect (or meta refresh):
	// "follow", cfetch itself; "handback", the frontier, to which cfetch
	// hands the next hop back as the response's redirect_request; "auto"
	// (the default), the frontier for requests that came from one (they
	// carry a lease), cfetch for the others.
	RedirectMode string

	// Retries is how many times a request is retried in all (RETRY_TIMES);
	// a request's own "retries" field counts against it.
	Retries int
	// RetryCodes are the HTTP statuses that are retried (RETRY_HTTP_CODES).
	RetryCodes []int
	// RetryBackoff is a request's first retry's delay, doubled for each
	// further retry of the request, ±50% jitter, at most MaxBackoff.
	RetryBackoff time.Duration
	// RestBackoff is the first rest of a host in trouble (failures in a
	// row, a 429 without Retry-After), doubled for each further rest in a
	// row, ±50% jitter, at most MaxBackoff.
	RestBackoff time.Duration
	// RetryAfterMax is the longest Retry-After (on 429 and 503) honoured;
	// a longer one ends the request's retries, and when the host rests (a
	// 429, failures in a row) it rests this long.
	RetryAfterMax time.Duration

	// ThrottleDB and ThrottleRedis name the schedule cthrottle keeps (an
	// SQLite file, a Redis URL), at most one of them: when set, each rest
	// of a host (a 429, failures in a row; as long as a Retry-After says)
	// is also written there as a hold on the host's key, so that every
	// cthrottle sharing the schedule holds the host's requests too
	// (holds.go).
	ThrottleDB, ThrottleRedis string

	// SaveDir, when set, receives binary bodies as files named by the SHA-1
	// of their content (FILES_STORE).
	SaveDir string

	// CacheDir, when set, enables the on-disk HTTP cache (HTTPCACHE_ENABLED,
	// HTTPCACHE_DIR) with CachePolicy "dummy" or "rfc9111"
	// (HTTPCACHE_POLICY); CacheExpire 0 keeps entries forever
	// (HTTPCACHE_EXPIRATION_SECS); CacheIgnoreCodes are never stored
	// (HTTPCACHE_IGNORE_HTTP_CODES); CacheOnly answers a miss with an
	// error instead of fetching (HTTPCACHE_IGNORE_MISSING).
	CacheDir         string
	CachePolicy      string
	CacheExpire      time.Duration
	CacheIgnoreCodes []int
	CacheOnly        bool
	// CacheFresh lets an rfc9111 entry answer without asking the server
	// while the server's own Cache-Control max-age or Expires says it is
	// fresh; without it every entry is revalidated.
	CacheFresh bool

	// WARC, when set, names the WARC file (a series: see warc.Writer) every
	// exchange is recorded in; WARCMaxSize starts the next file of the
	// series past that many bytes (0: one file). FromWARC reads WARC files
	// instead of fetching (warc_read.go).
	WARC        string
	WARCMaxSize int64
	FromWARC    bool

	// Insecure skips TLS certificate verification.
	Insecure bool

	// Render is how pages are loaded in a browser (--render, and requests
	// with "render": true).
	Render RenderOptions

	// keepHead makes a body over MaxSize keep its first MaxSize bytes
	// (body.truncated) instead of failing with too_large: robots.txt.
	keepHead bool
}

// MaxBackoff caps the exponential retry backoff.
const MaxBackoff = hostpace.MaxBackoff

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
		Concurrency:        16,
		PerHost:            8,
		RandomDelay:        true,
		ThrottleStart:      5 * time.Second,
		ThrottleMax:        60 * time.Second,
		ThrottleTarget:     1,
		RobotsObey:         true,
		Cookies:            true,
		Referer:            true,
		MetaRefreshMaxWait: 100 * time.Second,
		UserAgent:          DefaultUserAgent(),
		Render:             RenderOptions{Options: render.DefaultOptions()},
		Headers:            http.Header{},
		DNSCacheSize:       10000,
		DNSTimeout:         10 * time.Second,
		HTTP2:              true,
		WARCMaxSize:        1 << 30,
		Timeout:            60 * time.Second,
		ConnectTimeout:     10 * time.Second,
		MaxSize:            32 << 20,
		WarnSize:           8 << 20,
		MaxMemory:          defaultMaxMemory(),
		MaxRedirects:       20,
		FollowRedirects:    true,
		RedirectMode:       "auto",
		MetaRefresh:        true,
		Retries:            2,
		RetryCodes:         []int{500, 502, 503, 504, 522, 524, 408, 429},
		RetryBackoff:       50 * time.Millisecond,
		RestBackoff:        250 * time.Millisecond,
		RetryAfterMax:      60 * time.Second,
		CachePolicy:        "dummy",
	}
}

// maxConcurrency keeps a typo (--concurrency 1000000) from exhausting file
// descriptors.
const maxConcurrency = 10000

// readAhead is the most input records held at once.
func (o *Options) readAhead() int {
	if o.ReadAhead > 0 {
		return o.ReadAhead
	}
	return max(1024, 16*o.Concurrency)
}

// softReadAhead is the number of records held past which cfetch reads on
// only when requests could run but none can start.
func (o *Options) softReadAhead() int {
	return min(4*o.Concurrency, o.readAhead())
}

// robotsAgent is the product token matched against robots.txt groups.
func (o *Options) robotsAgent() string {
	if o.RobotsAgent != "" {
		return strings.ToLower(o.RobotsAgent)
	}
	return robots.ProductToken(o.UserAgent)
}

// Validate checks the settings; its errors name the flag and the valid values.
func (o *Options) Validate() error {
	switch {
	case o.Concurrency < 1 || o.Concurrency > maxConcurrency:
		return fmt.Errorf("--concurrency must be between 1 and %d (got %d)", maxConcurrency, o.Concurrency)
	case o.PerHost < 1 || o.PerHost > maxConcurrency:
		return fmt.Errorf("--per-host must be between 1 and %d (got %d)", maxConcurrency, o.PerHost)
	case o.ReadAhead < 0 || o.ReadAhead > 1000000:
		return fmt.Errorf("--read-ahead must be between 0 (the default) and 1000000 (got %d)", o.ReadAhead)
	case o.ReadAhead > 0 && o.ReadAhead < o.Concurrency:
		return fmt.Errorf("--read-ahead must be 0 or at least --concurrency %d (got %d)", o.Concurrency, o.ReadAhead)
	case o.Delay < 0:
		return fmt.Errorf("--delay must be a duration of 0 or more such as 500ms (got %s)", o.Delay)
	case o.ThrottleStart < 0:
		return fmt.Errorf("--autothrottle-start-delay must be a duration of 0 or more such as 5s (got %s)", o.ThrottleStart)
	case o.ThrottleMax <= 0:
		return fmt.Errorf("--autothrottle-max-delay must be a positive duration such as 60s (got %s)", o.ThrottleMax)
	case o.ThrottleMax < o.Delay:
		return fmt.Errorf("--autothrottle-max-delay %s must not be below --delay %s", o.ThrottleMax, o.Delay)
	case !(o.ThrottleTarget > 0 && o.ThrottleTarget <= 1000):
		return fmt.Errorf("--autothrottle-target must be a number above 0 such as 1.0 or 4 (got %v)", o.ThrottleTarget)
	case o.MetaRefreshMaxWait < 0:
		return fmt.Errorf("--meta-refresh-max-delay must be a duration of 0 or more such as 100s (got %s)", o.MetaRefreshMaxWait)
	case o.DNSCacheSize < 0:
		return fmt.Errorf("--dns-cache-size must be 0 (no cache) or more (got %d)", o.DNSCacheSize)
	case o.DNSTimeout <= 0:
		return fmt.Errorf("--dns-timeout must be a positive duration such as 10s (got %s)", o.DNSTimeout)
	case o.Timeout <= 0:
		return fmt.Errorf("--timeout must be a positive duration such as 30s or 2m (got %s)", o.Timeout)
	case o.ConnectTimeout <= 0:
		return fmt.Errorf("--connect-timeout must be a positive duration such as 10s (got %s)", o.ConnectTimeout)
	case o.HeaderTimeout < 0:
		return fmt.Errorf("--header-timeout must be a duration such as 20s, or 0 for --timeout (got %s)", o.HeaderTimeout)
	case o.MaxSize < 0:
		return fmt.Errorf("--max-size must be a size such as 32MiB, or 0 for no limit (got %d)", o.MaxSize)
	case o.WarnSize < 0:
		return fmt.Errorf("--warn-size must be a size such as 8MiB, or 0 for no warning (got %d)", o.WarnSize)
	case o.MaxMemory < 0:
		return fmt.Errorf("--max-memory must be a size such as 512MiB, or 0 for no limit (got %d)", o.MaxMemory)
	case o.MaxRedirects < 0:
		return fmt.Errorf("--max-redirects must be 0 or more (got %d)", o.MaxRedirects)
	case o.RedirectMode != "auto" && o.RedirectMode != "follow" && o.RedirectMode != "handback":
		return fmt.Errorf("--redirect-mode must be auto, follow or handback (got %q)", o.RedirectMode)
	case o.Retries < 0 || o.Retries > record.MaxRetries:
		return fmt.Errorf("--retries must be between 0 and %d (got %d)", record.MaxRetries, o.Retries)
	case o.RetryBackoff < 0:
		return fmt.Errorf("--retry-backoff must be a duration of 0 or more such as 50ms (got %s)", o.RetryBackoff)
	case o.RestBackoff < 0:
		return fmt.Errorf("--rest-backoff must be a duration of 0 or more such as 250ms (got %s)", o.RestBackoff)
	case o.RetryAfterMax < 0:
		return fmt.Errorf("--retry-after-max must be a duration of 0 or more such as 60s (got %s)", o.RetryAfterMax)
	case o.CachePolicy != "dummy" && o.CachePolicy != "rfc9111":
		return fmt.Errorf("--cache-policy must be dummy or rfc9111 (got %q)", o.CachePolicy)
	case o.CacheExpire < 0:
		return fmt.Errorf("--cache-expire must be a duration such as 24h, or 0 to keep entries forever (got %s)", o.CacheExpire)
	case o.ThrottleDB != "" && o.ThrottleRedis != "":
		return fmt.Errorf("--throttle-db and --throttle-redis: give one")
	case o.ThrottleRedis != "" && !storeurl.IsRedisURL(o.ThrottleRedis):
		return fmt.Errorf("--throttle-redis must be a Redis URL such as redis://host:6379/0 (got %q)", o.ThrottleRedis)
	case o.ThrottleDB != "" && storeurl.IsRedisURL(o.ThrottleDB):
		return fmt.Errorf("--throttle-db must be an SQLite file; for %q use --throttle-redis", o.ThrottleDB)
	case o.WARCMaxSize < 0:
		return fmt.Errorf("--warc-max-size must be 0 or more (got %d)", o.WARCMaxSize)
	case o.WARC != "" && o.FromWARC:
		return fmt.Errorf("--warc and --from-warc: give one (--from-warc fetches nothing)")
	case o.CacheOnly && o.CacheDir == "":
		return fmt.Errorf("--cache-only needs --cache-dir")
	case o.CacheFresh && (o.CacheDir == "" || o.CachePolicy != httpcache.RFC9111):
		return fmt.Errorf("--cache-fresh needs --cache-dir and --cache-policy rfc9111 (the dummy policy never asks the server)")
	}
	for _, c := range o.RetryCodes {
		if c < 100 || c > 599 {
			return fmt.Errorf("--retry-codes must list HTTP statuses between 100 and 599 (got %d)", c)
		}
	}
	for _, c := range o.CacheIgnoreCodes {
		if c < 100 || c > 599 {
			return fmt.Errorf("--cache-ignore-codes must list HTTP statuses between 100 and 599 (got %d)", c)
		}
	}
	for name, vals := range o.Headers {
		if err := checkHeader(name, vals); err != nil {
			return fmt.Errorf("--header: %v", err)
		}
	}
	if o.RobotsAgent != "" && !robots.ValidToken(o.RobotsAgent) {
		return fmt.Errorf("--robots-agent must be a product token of letters, digits, '_' and '-' such as mybot (got %q)", o.RobotsAgent)
	}
	if o.Proxy != nil {
		if err := checkProxyURL(o.Proxy); err != nil {
			return fmt.Errorf("--proxy: %v", err)
		}
	}
	return o.Render.validate()
}
