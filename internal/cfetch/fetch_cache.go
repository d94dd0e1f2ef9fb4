package cfetch

import "github.com/crawlutils/crawlutils/internal/httpcache"

// cacheRequest is the HTTP cache's view of the job's current hop.
func cacheRequest(j *job) *httpcache.Request {
	return &httpcache.Request{Method: j.method, URL: j.url.String(), Body: j.body, Header: j.header}
}

// cachedOutcome is the answer a cache entry gives the job's current hop.
func cachedOutcome(e *httpcache.Entry, j *job) outcome {
	return outcome{
		url: j.url.String(), status: e.Status, header: e.Header.Clone(),
		body: &body{data: e.Body, encoded: e.Encoded}, cached: true, connected: true,
	}
}
