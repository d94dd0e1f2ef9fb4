package cfetch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// Fetcher turns requests into response records. It is safe for concurrent
// use; build it with NewFetcher.
type Fetcher struct {
	client *http.Client
	opts   *Options
	retry  retryPolicy

	// now and sleep are the clock; tests replace them.
	now   func() time.Time
	sleep func(time.Duration)

	// wireBytes counts the bytes of all bodies read off the network.
	wireBytes atomic.Int64
}

// NewFetcher returns a Fetcher with its own http.Client for opts, which
// must be valid and must not change afterwards.
func NewFetcher(opts *Options) *Fetcher {
	return &Fetcher{
		client: newClient(opts),
		opts:   opts,
		retry:  newRetryPolicy(opts),
		now:    time.Now,
		sleep:  time.Sleep,
	}
}

// WireBytes returns the bytes downloaded so far (bodies as sent, before
// decompression).
func (f *Fetcher) WireBytes() int64 { return f.wireBytes.Load() }

// Close releases idle connections.
func (f *Fetcher) Close() { f.client.CloseIdleConnections() }

// outcome is the result of one attempt: a redirect chain ending in a
// response or an error.
type outcome struct {
	url       string
	status    int
	header    http.Header
	body      *body
	redirects []record.Redirect
	latency   time.Duration
	err       *FetchError
}

func (o *outcome) release() {
	if o.body != nil {
		o.body.release()
	}
}

// Fetch fetches req (at u, already checked with checkURL), retrying as
// configured, and returns its response record; raw is the request as read,
// copied into the record. ctx carries values only: each attempt gets its
// own timeout, and an interrupt does not cancel a fetch in flight.
func (f *Fetcher) Fetch(ctx context.Context, req *record.Request, u *url.URL, raw []byte) *record.Response {
	start := f.now()
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	header, host, err := buildHeaders(f.opts, req.Headers, req.UserAgent)
	if err != nil {
		// The reader checks headers first; this is a safety net.
		return f.failed(req, u.String(), raw, fetchErr(ErrInvalidURL, "%v", err))
	}
	var out outcome
	var warnings []string
	retries := 0
	for {
		out = f.attempt(ctx, method, u, header, host, req.Body)
		wait, again, warn := f.retry.decide(&out, req.Retries+retries, f.now())
		if warn != "" {
			warnings = append(warnings, warn)
		}
		if !again {
			break
		}
		out.release()
		f.sleep(wait)
		retries++
	}
	defer out.release()
	end := f.now()
	resp := &record.Response{
		Kind:       record.KindResponse,
		URL:        out.url,
		Request:    json.RawMessage(raw),
		Status:     out.status,
		Headers:    flattenHeaders(out.header),
		Redirects:  out.redirects,
		Retries:    req.Retries + retries,
		LatencyMS:  millis(out.latency),
		DurationMS: millis(end.Sub(start)),
		FetchedAt:  end.UTC().Format(timeLayout),
	}
	if out.err != nil {
		resp.Error, resp.ErrorDetail = out.err.Code, out.err.Detail
	}
	if out.body != nil {
		f.fillBody(resp, &out)
	}
	resp.Warnings = append(resp.Warnings, warnings...)
	return resp
}

// timeLayout is RFC 3339 in UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// failed is the record of a request that could not be sent at all.
func (f *Fetcher) failed(req *record.Request, u string, raw []byte, fe *FetchError) *record.Response {
	return &record.Response{
		Kind: record.KindResponse, URL: u, Request: json.RawMessage(raw),
		Retries: req.Retries, FetchedAt: f.now().UTC().Format(timeLayout),
		Error: fe.Code, ErrorDetail: fe.Detail,
	}
}

// fillBody sets the body fields of resp: UTF-8 text or base64.
func (f *Fetcher) fillBody(resp *record.Response, out *outcome) {
	b := out.body
	resp.Size = int64(len(b.data))
	resp.Warnings = append(resp.Warnings, b.warnings...)
	if len(b.data) == 0 {
		return
	}
	media, declared, _ := mediaTypeOf(out.header, b.data)
	if b.encoded || !isTextMedia(media) {
		resp.BodyBase64 = base64.StdEncoding.EncodeToString(b.data)
		return
	}
	d := decideCharset(b.data, declared, isHTMLMedia(media))
	resp.Body = toUTF8(d, b.data)
	resp.Encoding, resp.EncodingSource = d.name, d.source
	resp.Warnings = append(resp.Warnings, d.warnings...)
}

// attempt fetches u once, following redirects, within one timeout.
func (f *Fetcher) attempt(parent context.Context, method string, u *url.URL, header http.Header, host, reqBody string) outcome {
	ctx, cancel := context.WithTimeout(parent, f.opts.Timeout)
	defer cancel()
	out := outcome{url: u.String()}
	seen := map[string]bool{chainKey(u): true}
	shared := true // header belongs to the caller until a redirect changes it
	for {
		var lt latencyTrace
		var bodyReader io.Reader
		if reqBody != "" {
			bodyReader = strings.NewReader(reqBody)
		}
		hreq, err := http.NewRequestWithContext(lt.withTrace(ctx), method, u.String(), bodyReader)
		if err != nil {
			out.err = fetchErr(ErrInvalidURL, "%v", describeErr(err))
			return out
		}
		hreq.Header = header
		if host != "" {
			hreq.Host = host
		}
		resp, err := f.client.Do(hreq)
		if err != nil {
			out.err = f.timeoutDetail(ctx, classify(err, phaseHeaders))
			return out
		}
		out.latency = lt.latency()
		out.status, out.header = resp.StatusCode, resp.Header
		loc := resp.Header.Get("Location")
		if !f.opts.FollowRedirects || !isRedirect(resp.StatusCode) || loc == "" {
			out.body, out.err = readBody(resp, f.opts)
			resp.Body.Close()
			if out.body != nil {
				f.wireBytes.Add(out.body.wire)
			} else if out.err != nil {
				out.err = f.timeoutDetail(ctx, out.err)
			}
			return out
		}
		// A redirect: drain a little so the connection can be reused.
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		f.wireBytes.Add(n)
		resp.Body.Close()
		out.redirects = append(out.redirects, record.Redirect{URL: u.String(), Status: resp.StatusCode})
		next, err := u.Parse(strings.TrimSpace(loc))
		if err != nil {
			out.err = fetchErr(ErrInvalidURL, "redirect to an invalid URL %q: %s", loc, strings.TrimPrefix(err.Error(), "parse "))
			return out.failedRedirect(loc)
		}
		if next.Fragment == "" && u.Fragment != "" {
			next.Fragment = u.Fragment // RFC 9110 §10.2.2
		}
		out.url = next.String()
		if _, fe := checkURL(out.url); fe != nil {
			out.err = fe
			out.err.Detail = "redirect to " + fe.Detail
			return out.failedRedirect(out.url)
		}
		key := chainKey(next)
		if seen[key] {
			out.err = fetchErr(ErrRedirectLoop, "redirect loop: %s was already visited in this chain", out.url)
			return out.failedRedirect(out.url)
		}
		if len(out.redirects) > f.opts.MaxRedirects {
			out.err = fetchErr(ErrTooManyRedirects, "more than %d redirects (--max-redirects)", f.opts.MaxRedirects)
			return out.failedRedirect(out.url)
		}
		seen[key] = true
		if shared {
			header, shared = header.Clone(), false
		}
		var keepBody bool
		method, keepBody = redirectMethod(resp.StatusCode, method)
		if !keepBody {
			reqBody = ""
			for _, h := range bodyHeaders {
				header.Del(h)
			}
		}
		if next.Hostname() != u.Hostname() {
			for _, h := range sensitiveHeaders {
				header.Del(h)
			}
			host = ""
		}
		u = next
	}
}

// failedRedirect ends a chain that cannot go on: the record names where it
// was going and has no status (no response came from there).
func (o *outcome) failedRedirect(target string) outcome {
	o.url = target
	o.status, o.header, o.latency = 0, nil, 0
	return *o
}

// timeoutDetail says which limit a timeout hit.
func (f *Fetcher) timeoutDetail(ctx context.Context, fe *FetchError) *FetchError {
	if fe.Code != ErrTimeout {
		return fe
	}
	if ctx.Err() != nil {
		return fetchErr(ErrTimeout, "no complete response within %s (--timeout)", f.opts.Timeout)
	}
	return fetchErr(ErrTimeout, "%s (--connect-timeout %s, --timeout %s)", fe.Detail, f.opts.ConnectTimeout, f.opts.Timeout)
}
