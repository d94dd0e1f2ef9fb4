package cfetch

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

var help = cli.Help{
	Usage:   "cfetch [flags] [FILE...]",
	Summary: "fetch requests and write one response record per request",
	Description: `Reads request records (NDJSON) or bare URL lines from the FILEs or stdin and
fetches them concurrently and politely. Writes exactly one response record per
request, in the order they complete; a failed fetch is a response with "error"
set (dns, refused, reset, timeout, tls, protocol, too_large, truncated, decode,
redirect_loop, too_many_redirects, offsite_redirect, unsupported_scheme, invalid_url,
invalid_request, robots, cache_miss, private_address, network, render). Records of
other kinds pass through unchanged.

Politeness: requests are queued per host:port; at most --per-host run at once
on one host, --delay apart (or as AutoThrottle decides), so that one slow or
throttled host never holds up the others. robots.txt is obeyed (Crawl-delay
included) unless --no-robots; a request it denies is answered with
"error":"robots". A 429, or failures that keep coming, make the host rest
(Retry-After is honoured); one failing page does not slow the others. With
--throttle-db FILE or --throttle-redis URL, the schedule of a cthrottle, each rest
is written there too, and every cthrottle sharing it holds that host until the
rest ends: one politeness decision for the whole fleet.

Text bodies (HTML, XML, JSON, JavaScript, text/*) are converted to UTF-8 in
"body"; others are base64 in "body_base64", or files under --save-dir. gzip,
deflate, br and zstd are decoded. Redirects are followed and listed in
"redirects"; 5xx, 408, 429 and network errors are retried with exponential
backoff per request. Cookies are kept per "crawlid".

Memory: the bodies in flight (as read, as text, as records until written)
hold at most --max-memory at once; a response waits for its share, and one
larger than all of it still runs, alone. A request line that cannot be read
but holds a "lease" is answered with {"kind":"ack","error":"invalid_record"}.

Internal addresses (loopback, link-local such as the cloud metadata service
169.254.169.254, private, unique-local, CGNAT) are off limits unless the crawl
started there: a URL whose host is written as one — 127.0.0.1, [::1],
localhost, 10.0.0.5 — is fetched when it is a seed, or a link ("referer") or
redirect from a page on such a host; from anywhere else it is answered with
"error":"private_address". A host name that resolves to an internal address
is refused as it connects. A host --resolve maps to an internal address counts
as one written so (a public page's link to it is refused); proxies are the
user's choice and not checked; --allow-private turns the check off.

Pages built by JavaScript: --render (or "render":true in a request) loads the
page in headless Chromium and writes the DOM after load as "body", with
"rendered":true, the URLs of the documents, XHR and fetch() requests the page
made in "requests", and the requests it was not let make in "render_blocked"
(robots.txt, internal addresses, --render-block kinds). The page's own
requests keep to its hosts' --per-host and delay (AutoThrottle's too).
Status, headers and redirects are the main document's. A page the browser
failed twice (it crashed) is answered with "error":"render". A browser that
holds more than --render-max-memory after a page is restarted once its pages
have ended.`,
	Examples: `  echo https://example.com/ | cfetch | jq -r .status
  cfetch urls.txt > responses.jsonl
  cfetch -c 64 --per-host 2 --delay 1s -H 'Accept-Language: de' < requests.jsonl > responses.jsonl
  cfetch -c 64 --max-memory 512M urls.txt > responses.jsonl     # bodies in flight: 512 MiB at most
  cfetch --autothrottle --autothrottle-debug urls.txt > responses.jsonl
  cfetch < requests.jsonl | cextract -f title='h1::text' | cexport -f csv
  cfetch --cache-dir .cache/http urls.txt > responses.jsonl     # again: no request sent
  cfetch --resolve 'shop.test:80:127.0.0.1' <<< http://shop.test/
  cfetch urls.txt | jq -c 'select(.error) | {url, error, error_detail}'
  cfetch --render --render-wait idle urls.txt > responses.jsonl    # pages built by JavaScript
  cfetch --warc crawl.warc.gz urls.txt > responses.jsonl     # every exchange kept in a WARC file too
  cfetch --from-warc crawl.warc.gz | cextract -r rules.yml | cexport -o items.csv     # again, offline
  cqueue pop --db crawl.db --follow | cthrottle --db crawl.db --rate 2/s | cfetch --throttle-db crawl.db | …`,
}

// Command returns the cfetch command, for cli.Main or cli.Execute.
func Command() *cli.Command {
	cmd, _ := newCommand()
	return cmd
}

// newCommand returns the cfetch command and the run its flags are parsed
// into.
func newCommand() (*cli.Command, *command) {
	c := &command{opts: DefaultOptions()}
	return &cli.Command{Name: "cfetch", Help: help, Flags: c.define, Run: c.run, OpenStats: toolstats.OpenSink,
		Check: func(*cli.Env) error { return c.apply() }}, c
}

// command is a run of cfetch: its options, and the flags that set them
// only once parsed (the negations, headers, auth, proxy, --resolve).
type command struct {
	opts                            Options
	noRandom, noRobots, noCookies   *bool
	noReferer, noHTTP2, noRedirects *bool
	noMetaRefresh                   *bool
	headers, resolve                []string
	user, proxy                     string
	render                          renderFlags
}

func (c *command) define(f *cli.Flags) {
	opts := &c.opts
	f.IntVarP(&opts.Concurrency, "concurrency", "c", opts.Concurrency, "requests in flight (Scrapy CONCURRENT_REQUESTS)")
	f.IntVar(&opts.PerHost, "per-host", opts.PerHost, "requests in flight at once to one host:port; the requests rendered pages make there are held to it too, apart (Scrapy CONCURRENT_REQUESTS_PER_DOMAIN)")
	f.DurationVar(&opts.Delay, "delay", 0, "time between two request starts on one host (Scrapy DOWNLOAD_DELAY)")
	c.noRandom = f.Bool("no-random-delay", false, "use --delay as is, not times a random 0.5–1.5 (Scrapy RANDOMIZE_DOWNLOAD_DELAY=False)")
	f.IntVar(&opts.ReadAhead, "read-ahead", 0, "most input records held at once (queued, in flight, waiting to retry); 0: max(1024, 16 × --concurrency)")
	f.BoolVar(&opts.AutoThrottle, "autothrottle", false, "adapt each host's delay to its latency (Scrapy AUTOTHROTTLE_ENABLED)")
	f.DurationVar(&opts.ThrottleStart, "autothrottle-start-delay", opts.ThrottleStart, "AutoThrottle's first delay per host (Scrapy AUTOTHROTTLE_START_DELAY)")
	f.DurationVar(&opts.ThrottleMax, "autothrottle-max-delay", opts.ThrottleMax, "largest delay AutoThrottle or robots.txt Crawl-delay sets (Scrapy AUTOTHROTTLE_MAX_DELAY)")
	f.Float64Var(&opts.ThrottleTarget, "autothrottle-target", opts.ThrottleTarget, "requests AutoThrottle aims to have in flight per host (Scrapy AUTOTHROTTLE_TARGET_CONCURRENCY)")
	f.BoolVar(&opts.ThrottleDebug, "autothrottle-debug", false, "print every AutoThrottle adjustment to stderr (Scrapy AUTOTHROTTLE_DEBUG)")
	c.noRobots = f.Bool("no-robots", false, "do not fetch or obey robots.txt (Scrapy ROBOTSTXT_OBEY=False)")
	f.StringVar(&opts.RobotsAgent, "robots-agent", "", "`TOKEN` matched against robots.txt User-agent lines; default: the product token of --user-agent (Scrapy ROBOTSTXT_USER_AGENT)")
	f.StringVarP(&opts.UserAgent, "user-agent", "A", opts.UserAgent, "User-Agent header, unless the request sets one (Scrapy USER_AGENT)")
	f.StringArrayVarP(&c.headers, "header", "H", nil, "`'Name: value'` sent with every request unless the request sets it; repeatable (Scrapy DEFAULT_REQUEST_HEADERS)")
	c.noCookies = f.Bool("no-cookies", false, "do not keep cookies (Scrapy COOKIES_ENABLED=False); by default one cookie jar per crawlid")
	c.noReferer = f.Bool("no-referer", false, "do not send a request's \"referer\" as its Referer header (Scrapy REFERER_ENABLED=False)")
	f.StringVarP(&c.user, "user", "u", "", "`USER:PASSWORD` sent as basic auth to --auth-domain (Scrapy http_user, http_pass)")
	f.StringVar(&opts.AuthDomain, "auth-domain", "", "`DOMAIN` (and its subdomains) that gets --user; default: the host of the first request (Scrapy http_auth_domain)")
	f.StringVar(&c.proxy, "proxy", "", "`URL` of the proxy for every request without its own \"proxy\"; default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY (Scrapy HttpProxyMiddleware)")
	f.StringArrayVar(&c.resolve, "resolve", nil, "`HOST:PORT:ADDR[,ADDR]` connect to ADDR for HOST:PORT, as curl does; HOST may be *; repeatable")
	f.BoolVar(&opts.AllowPrivate, "allow-private", false, "let any request connect to loopback, link-local, private and other internal addresses; by default only a crawl that starts on one may")
	f.IntVar(&opts.DNSCacheSize, "dns-cache-size", opts.DNSCacheSize, "host names whose addresses are cached for 5m; 0: no cache (Scrapy DNSCACHE_SIZE, DNSCACHE_ENABLED)")
	f.DurationVar(&opts.DNSTimeout, "dns-timeout", opts.DNSTimeout, "time limit of one DNS lookup (Scrapy DNS_TIMEOUT)")
	c.noHTTP2 = f.Bool("no-http2", false, "speak HTTP/1.1 only (HTTP/2 is used with TLS servers that offer it)")
	f.DurationVar(&opts.Timeout, "timeout", opts.Timeout, "time limit of one exchange: connect, request, headers and body (Scrapy DOWNLOAD_TIMEOUT)")
	f.DurationVar(&opts.ConnectTimeout, "connect-timeout", opts.ConnectTimeout, "time limit of the TCP connect and of the TLS handshake")
	f.DurationVar(&opts.HeaderTimeout, "header-timeout", 0, "time limit for the response headers once the request is sent; 0: --timeout")
	f.Var(sizeValue{&opts.MaxSize}, "max-size", "largest body accepted, on the wire and decompressed; 0: no limit (Scrapy DOWNLOAD_MAXSIZE)")
	f.Var(sizeValue{&opts.WarnSize}, "warn-size", "warn about bodies larger than this; 0: never (Scrapy DOWNLOAD_WARNSIZE)")
	f.Var(sizeValue{&opts.MaxMemory}, "max-memory", "most memory the bodies in flight hold at once, as read, as text and as records until written; one larger response still runs, alone; 0: no limit; by default a quarter of RAM, at most 1GiB")
	f.IntVar(&opts.MaxRedirects, "max-redirects", opts.MaxRedirects, "redirects followed per request (Scrapy REDIRECT_MAX_TIMES)")
	c.noRedirects = f.Bool("no-redirects", false, "do not follow redirects: the 3xx response is the result (Scrapy REDIRECT_ENABLED=False)")
	f.StringVar(&opts.RedirectMode, "redirect-mode", opts.RedirectMode, "who follows a redirect: follow (cfetch), handback (the frontier: the response carries the next hop as redirect_request) or auto (handback for requests with a lease)")
	f.BoolVar(&opts.MetaRefresh, "meta-refresh", opts.MetaRefresh, "follow <meta http-equiv=refresh> in HTML like a redirect (Scrapy METAREFRESH_ENABLED); on by default")
	c.noMetaRefresh = f.Bool("no-meta-refresh", false, "do not follow <meta http-equiv=refresh> (Scrapy METAREFRESH_ENABLED=False)")
	f.DurationVar(&opts.MetaRefreshMaxWait, "meta-refresh-max-delay", opts.MetaRefreshMaxWait, "longest refresh delay followed (Scrapy METAREFRESH_MAXDELAY)")
	f.IntVar(&opts.Retries, "retries", opts.Retries, "retries per request, counting the request's own \"retries\" (Scrapy RETRY_TIMES; 0: RETRY_ENABLED=False)")
	f.IntSliceVar(&opts.RetryCodes, "retry-codes", opts.RetryCodes, "HTTP statuses that are retried (Scrapy RETRY_HTTP_CODES)")
	f.DurationVar(&opts.RetryBackoff, "retry-backoff", opts.RetryBackoff, "wait before a request's first retry (at least its Retry-After), doubled for each further retry, ±50% jitter, at most 10s")
	f.DurationVar(&opts.RestBackoff, "rest-backoff", opts.RestBackoff, "a host's first rest when it is in trouble (3 failures in a row, a 429), doubled for each further rest in a row, ±50% jitter, at most 10s")
	f.DurationVar(&opts.RetryAfterMax, "retry-after-max", opts.RetryAfterMax, "longest Retry-After (on 429 and 503) waited for; a longer one ends the request's retries (a 429's still rests the host this long)")
	f.StringVar(&opts.SaveDir, "save-dir", "", "write binary bodies to `DIR`/full/<sha1 of the body>.<ext>, named in \"body_path\" (Scrapy FILES_STORE)")
	f.StringVar(&opts.CacheDir, "cache-dir", "", "keep responses in an HTTP cache in `DIR` and answer from it (Scrapy HTTPCACHE_ENABLED, HTTPCACHE_DIR)")
	f.StringVar(&opts.CachePolicy, "cache-policy", opts.CachePolicy, "dummy (every response, answered without a request, until --cache-expire) or rfc9111 (what HTTP lets a cache store; every page asked again with If-None-Match / If-Modified-Since, a 304 answered from the cache as \"unchanged\") (Scrapy HTTPCACHE_POLICY)")
	f.DurationVar(&opts.CacheExpire, "cache-expire", 0, "age after which cached responses are not used; 0: never (Scrapy HTTPCACHE_EXPIRATION_SECS)")
	f.IntSliceVar(&opts.CacheIgnoreCodes, "cache-ignore-codes", nil, "HTTP statuses never cached (Scrapy HTTPCACHE_IGNORE_HTTP_CODES)")
	f.BoolVar(&opts.CacheFresh, "cache-fresh", false, "with --cache-policy rfc9111: answer from the cache without asking the server while the server's Cache-Control max-age or Expires says a response is fresh (default: every cached page is asked again, conditionally)")
	f.BoolVar(&opts.CacheOnly, "cache-only", false, "never touch the network: a request not in the cache gets \"error\":\"cache_miss\" (Scrapy HTTPCACHE_IGNORE_MISSING)")
	f.StringVar(&opts.WARC, "warc", "", "record every exchange, as it went over the wire, in the WARC `FILE` (.warc.gz: one gzip member per record); a new file of its series (FILE-00001.warc.gz, …) when FILE exists or passes --warc-max-size; see docs/warc.md")
	f.Var(sizeValue{&opts.WARCMaxSize}, "warc-max-size", "start the next WARC file of the series past this size; 0: one file (Heritrix's WARC_MAX_SIZE)")
	f.BoolVar(&opts.FromWARC, "from-warc", false, "fetch nothing: read the WARC files given as arguments and write a response record for each HTTP response in them, as if fetched then")
	f.BoolVarP(&opts.Insecure, "insecure", "k", false, "do not verify TLS certificates (Scrapy's default behaviour)")
	f.StringVar(&opts.ThrottleDB, "throttle-db", "", "also write each rest of a host (a 429, failures in a row; as long as the Retry-After says) as a hold into the cthrottle schedule in the SQLite `FILE`, so every cthrottle sharing it holds the host too")
	f.StringVar(&opts.ThrottleRedis, "throttle-redis", "", "the same, into the cthrottle schedule on the Redis server at `URL` (redis://host:port/db, redis+cluster://…)")
	c.defineRender(f)
}

// apply sets the options the parsed flags give; its errors are usage
// errors.
func (c *command) apply() error {
	opts := &c.opts
	opts.FollowRedirects = !*c.noRedirects
	opts.MetaRefresh = opts.MetaRefresh && !*c.noMetaRefresh
	opts.RobotsObey = !*c.noRobots
	opts.Cookies = !*c.noCookies
	opts.Referer = !*c.noReferer
	opts.RandomDelay = !*c.noRandom
	opts.HTTP2 = !*c.noHTTP2
	opts.Headers = make(map[string][]string, len(c.headers))
	for _, h := range c.headers {
		name, value, err := parseHeader(h)
		if err != nil {
			return cli.Usagef("--header: %v", err)
		}
		opts.Headers[name] = append(opts.Headers[name], value)
	}
	if c.user != "" {
		u, p, ok := strings.Cut(c.user, ":")
		if !ok || u == "" {
			return cli.Usagef("--user: want USER:PASSWORD (got %q)", c.user)
		}
		opts.AuthUser, opts.AuthPass = u, p
	}
	if c.proxy != "" {
		pu, err := url.Parse(c.proxy)
		if err != nil {
			return cli.Usagef("--proxy: invalid URL %q", c.proxy)
		}
		opts.Proxy = pu
	}
	if len(c.resolve) > 0 {
		opts.Resolve = map[string][]string{}
		for _, r := range c.resolve {
			key, addrs, err := parseResolve(r)
			if err != nil {
				return cli.Usagef("--resolve: %v", err)
			}
			opts.Resolve[key] = addrs
		}
	}
	if err := c.applyRender(); err != nil {
		return err
	}
	if err := opts.Validate(); err != nil {
		return cli.Usagef("%v", err)
	}
	return nil
}

// checkProxyURL accepts an absolute http, https or socks5 proxy URL.
func checkProxyURL(u *url.URL) error {
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return fmt.Errorf("want an http://, https:// or socks5:// URL (got %q)", u.String())
	}
	if u.Host == "" {
		return fmt.Errorf("no host in %q", u.String())
	}
	return nil
}
