package cfetch

import (
	"io"

	"github.com/crawlutils/crawlutils/internal/cli"
)

var help = cli.Help{
	Usage:   "cfetch [flags] [FILE...]",
	Summary: "fetch requests and write one response record per request",
	Description: `Reads request records (NDJSON) or bare URL lines from the FILEs or stdin and
fetches them concurrently. Writes exactly one response record per request, in
the order they complete; a failed fetch is a response with "error" set (dns,
refused, reset, timeout, tls, protocol, too_large, truncated, decode,
redirect_loop, too_many_redirects, unsupported_scheme, invalid_url, network).
Records of other kinds pass through unchanged.

Text bodies (HTML, XML, JSON, JavaScript, text/*) are converted to UTF-8 in
"body"; others are base64 in "body_base64". gzip, deflate, br and zstd are
decoded. Redirects are followed and listed in "redirects"; 5xx, 408, 429 and
network errors are retried with exponential backoff, honouring Retry-After.`,
	Examples: `  echo https://example.com/ | cfetch | jq -r .status
  cfetch urls.txt > responses.jsonl
  cfetch -c 64 --timeout 20s -H 'Accept-Language: de' < requests.jsonl > responses.jsonl
  cfetch < requests.jsonl | cextract -f title='h1::text' | cexport -f csv
  cfetch urls.txt | jq -c 'select(.error) | {url, error, error_detail}'`,
}

// parseFlags parses args into opts. When done is true, Run returns code at
// once (help, version or a usage error, already reported).
func parseFlags(tool *cli.Tool, args []string, stdout io.Writer) (opts Options, f *cli.Flags, files []string, code int, done bool) {
	opts = DefaultOptions()
	f = tool.NewFlags(help)
	f.IntVarP(&opts.Concurrency, "concurrency", "c", opts.Concurrency, "requests in flight at once (Scrapy CONCURRENT_REQUESTS)")
	f.StringVarP(&opts.UserAgent, "user-agent", "A", opts.UserAgent, "User-Agent header, unless the request sets one (Scrapy USER_AGENT)")
	var headers []string
	f.StringArrayVarP(&headers, "header", "H", nil, "`'Name: value'` sent with every request unless the request sets it; repeatable (Scrapy DEFAULT_REQUEST_HEADERS)")
	f.DurationVar(&opts.Timeout, "timeout", opts.Timeout, "time limit of one attempt: connect, redirects, headers and body (Scrapy DOWNLOAD_TIMEOUT)")
	f.DurationVar(&opts.ConnectTimeout, "connect-timeout", opts.ConnectTimeout, "time limit of the TCP connect and of the TLS handshake")
	f.Var(sizeValue{&opts.MaxSize}, "max-size", "largest body accepted, on the wire and decompressed; 0: no limit (Scrapy DOWNLOAD_MAXSIZE)")
	f.Var(sizeValue{&opts.WarnSize}, "warn-size", "warn about bodies larger than this; 0: never (Scrapy DOWNLOAD_WARNSIZE)")
	f.IntVar(&opts.MaxRedirects, "max-redirects", opts.MaxRedirects, "redirects followed per request (Scrapy REDIRECT_MAX_TIMES)")
	noRedirects := f.Bool("no-redirects", false, "do not follow redirects: the 3xx response is the result (Scrapy REDIRECT_ENABLED=False)")
	f.IntVar(&opts.Retries, "retries", opts.Retries, "retries per request, counting the request's own \"retries\" (Scrapy RETRY_TIMES; 0: RETRY_ENABLED=False)")
	f.IntSliceVar(&opts.RetryCodes, "retry-codes", opts.RetryCodes, "HTTP statuses that are retried (Scrapy RETRY_HTTP_CODES)")
	f.DurationVar(&opts.RetryBackoff, "retry-backoff", opts.RetryBackoff, "delay before the first retry, doubled for each further one, ±50% jitter, at most 10s")
	f.DurationVar(&opts.RetryAfterMax, "retry-after-max", opts.RetryAfterMax, "longest Retry-After (on 429 and 503) waited for; a longer one ends the retries")
	f.BoolVarP(&opts.Insecure, "insecure", "k", false, "do not verify TLS certificates (Scrapy's default behaviour)")

	files, code, done = f.Parse(args, stdout)
	if done {
		return opts, f, nil, code, true
	}
	opts.FollowRedirects = !*noRedirects
	opts.Headers = make(map[string][]string, len(headers))
	for _, h := range headers {
		name, value, err := parseHeader(h)
		if err != nil {
			return opts, f, nil, tool.Usage("--header: %v", err), true
		}
		opts.Headers[name] = append(opts.Headers[name], value)
	}
	if err := opts.Validate(); err != nil {
		return opts, f, nil, tool.Usage("%v", err), true
	}
	return opts, f, files, cli.ExitOK, false
}
