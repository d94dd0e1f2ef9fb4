package cfetch

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// httpCache is cfetch's on-disk HTTP cache (Scrapy's HttpCacheMiddleware
// with its filesystem storage): every exchange's response is stored under
// a key of its method, URL and body, and later answered from disk.
//
// Layout: DIR/<first two hex digits>/<key>.json holds the metadata (URL,
// status, headers, when it was stored, the body's size and SHA-1) and
// <key>.body the body, already decompressed. Both are written atomically
// (a temporary file renamed), body first, so a reader never sees a
// half-written entry, and several cfetch processes may share a directory.
//
// Two policies, as in Scrapy: "dummy" stores every response and answers
// from the cache whenever an entry exists (a crawl can be re-run without
// touching the site); "rfc9111" stores and answers as an HTTP private
// cache does (Cache-Control, Expires, validators), revalidating stale
// entries with If-None-Match and If-Modified-Since.
type httpCache struct {
	dir    string
	policy string
	expire time.Duration
	ignore map[int]bool
	count  func(group, key string)
}

func openHTTPCache(o *Options) (*httpCache, error) {
	if err := os.MkdirAll(o.CacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("--cache-dir: %v", err)
	}
	c := &httpCache{dir: o.CacheDir, policy: o.CachePolicy, expire: o.CacheExpire, ignore: map[int]bool{}}
	for _, code := range o.CacheIgnoreCodes {
		c.ignore[code] = true
	}
	return c, nil
}

// cacheEntry is the metadata of one cached response.
type cacheEntry struct {
	Key      string      `json:"key"`
	Method   string      `json:"method"`
	URL      string      `json:"url"`
	Status   int         `json:"status"`
	Header   http.Header `json:"headers"`
	StoredAt time.Time   `json:"stored_at"`
	Size     int64       `json:"body_size"`
	SHA1     string      `json:"body_sha1"`
	Encoded  bool        `json:"encoded,omitempty"`

	body []byte
}

// decodeCacheMeta parses and checks a metadata file.
func decodeCacheMeta(b []byte) (*cacheEntry, error) {
	var e cacheEntry
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&e); err != nil {
		return nil, err
	}
	switch {
	case len(e.Key) != 40 || strings.Trim(e.Key, "0123456789abcdef") != "":
		return nil, errors.New("bad key")
	case e.Status < 100 || e.Status > 599:
		return nil, errors.New("bad status")
	case e.Size < 0:
		return nil, errors.New("bad size")
	case e.StoredAt.IsZero():
		return nil, errors.New("no stored_at")
	case e.Method == "" || e.URL == "":
		return nil, errors.New("no method or url")
	}
	for name, vals := range e.Header {
		if checkHeader(name, vals) != nil {
			return nil, fmt.Errorf("bad header %q", name)
		}
	}
	return &e, nil
}

// cacheKey is the key of a job's current hop.
func cacheKey(j *job) string {
	h := sha1.New()
	h.Write([]byte(j.method))
	h.Write([]byte{' '})
	h.Write([]byte(j.url.String()))
	h.Write([]byte{'\n'})
	h.Write([]byte(j.body))
	return hex.EncodeToString(h.Sum(nil))
}

func (c *httpCache) paths(key string) (meta, body string) {
	base := filepath.Join(c.dir, key[:2], key)
	return base + ".json", base + ".body"
}

func (c *httpCache) counter(key string) {
	if c.count != nil {
		c.count("cache", key)
	}
}

// cacheable reports whether the job's current hop may be stored and
// answered: any method with the dummy policy, GET and HEAD without
// "Cache-Control: no-store" with rfc9111.
func (c *httpCache) cacheable(j *job) bool {
	if c.policy == "dummy" {
		return true
	}
	if j.method != http.MethodGet && j.method != http.MethodHead {
		return false
	}
	_, noStore := parseCacheControl(j.header.Values("Cache-Control"))["no-store"]
	return !noStore
}

// load returns the entry of the job's hop, or nil when there is none, it
// is older than --cache-expire, or it cannot be read.
func (c *httpCache) load(j *job, now time.Time) *cacheEntry {
	key := cacheKey(j)
	metaPath, bodyPath := c.paths(key)
	b, err := os.ReadFile(metaPath)
	if err != nil {
		c.counter("miss")
		return nil
	}
	e, err := decodeCacheMeta(b)
	if err != nil || e.Key != key || (c.expire > 0 && now.Sub(e.StoredAt) >= c.expire) {
		c.counter("miss")
		return nil
	}
	data, err := os.ReadFile(bodyPath)
	if err != nil || int64(len(data)) != e.Size {
		c.counter("miss")
		return nil
	}
	e.body = data
	return e
}

// fresh reports whether e may answer the job without asking the server.
func (c *httpCache) fresh(e *cacheEntry, j *job, now time.Time) bool {
	if c.policy == "dummy" {
		c.counter("hit")
		return true
	}
	if rfcFresh(e, j.header, now) {
		c.counter("hit")
		return true
	}
	c.counter("stale")
	return false
}

// outcome is the answer an entry gives.
func (c *httpCache) outcome(e *cacheEntry, j *job) outcome {
	return outcome{
		url: j.url.String(), status: e.Status, header: e.Header.Clone(),
		body: &body{data: e.body, encoded: e.Encoded}, cached: true, connected: true,
	}
}

// store writes the outcome of the job's hop, when the policy allows.
func (c *httpCache) store(j *job, out *outcome, now time.Time) {
	if c.ignore[out.status] || out.body == nil {
		return
	}
	if c.policy == "rfc9111" && !rfcStorable(j.header, out.status, out.header) {
		return
	}
	data := out.body.data
	if data == nil {
		// No body (a followed redirect's) is stored as an empty file:
		// write(e, nil) would keep the body file there is, and without
		// one the entry is a miss.
		data = []byte{}
	}
	sum := sha1.Sum(data)
	e := &cacheEntry{
		Key: cacheKey(j), Method: j.method, URL: j.url.String(), Status: out.status,
		Header: out.header, StoredAt: now.UTC(), Size: int64(len(data)),
		SHA1: hex.EncodeToString(sum[:]), Encoded: out.body.encoded,
	}
	if err := c.write(e, data); err == nil {
		c.counter("stored")
	} else {
		c.counter("store_failed")
	}
}

func (c *httpCache) write(e *cacheEntry, data []byte) error {
	metaPath, bodyPath := c.paths(e.Key)
	if err := os.MkdirAll(filepath.Dir(metaPath), 0o755); err != nil {
		return err
	}
	if data != nil {
		if err := writeAtomic(bodyPath, data); err != nil {
			return err
		}
	}
	meta, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return writeAtomic(metaPath, append(meta, '\n'))
}

// revalidated answers a job from a stale entry the server confirmed with
// 304 Not Modified: the entry's headers are updated from the 304's
// (RFC 9111 §4.3.4) and stored again.
func (c *httpCache) revalidated(e *cacheEntry, j *job, h http.Header, now time.Time, net outcome) outcome {
	c.counter("revalidated")
	if c.keepOnRevalidation(e, h) {
		out := c.outcome(e, j)
		out.cached, out.latency, out.unchanged = false, net.latency, true
		return out
	}
	for name, vals := range h {
		switch http.CanonicalHeaderKey(name) {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding", "Content-Type":
			continue
		}
		e.Header[name] = vals
	}
	e.StoredAt = now.UTC()
	c.write(e, nil)
	out := c.outcome(e, j)
	out.cached, out.latency, out.unchanged = false, net.latency, true
	return out
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// parseCacheControl parses Cache-Control header values into directives
// (lower-case names; values unquoted; "" for a directive without one).
func parseCacheControl(values []string) map[string]string {
	var m map[string]string
	for _, v := range values {
		for len(v) > 0 {
			var part string
			part, v = nextDirective(v)
			name, val, _ := strings.Cut(part, "=")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			val = strings.TrimSpace(val)
			if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
				val = strings.ReplaceAll(val[1:len(val)-1], `\`, "")
			}
			if m == nil {
				m = map[string]string{}
			}
			if _, dup := m[name]; !dup {
				m[name] = val
			}
		}
	}
	return m
}

// nextDirective splits off the first comma-separated directive, commas
// inside quotes included in it.
func nextDirective(s string) (string, string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case '\\':
			if quoted {
				i++
			}
		case ',':
			if !quoted {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// seconds reads a delta-seconds directive value.
func seconds(cc map[string]string, name string) (time.Duration, bool) {
	v, ok := cc[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(min(n, int64(maxFreshness/time.Second))) * time.Second, true
}

// maxFreshness caps every freshness lifetime (and stands for "forever").
const maxFreshness = 365 * 24 * time.Hour

// rfcStorable says whether a response may be stored (as Scrapy's
// RFC2616Policy decides it): not with no-store; yes with an explicit
// lifetime (max-age, Expires); yes for permanent redirects and multiple
// choices; for 200, 203 and 401 only with a validator (ETag,
// Last-Modified); not otherwise.
func rfcStorable(reqHeader http.Header, status int, h http.Header) bool {
	cc := parseCacheControl(h.Values("Cache-Control"))
	if _, ok := cc["no-store"]; ok {
		return false
	}
	if _, ok := parseCacheControl(reqHeader.Values("Cache-Control"))["no-store"]; ok {
		return false
	}
	switch {
	case status == http.StatusNotModified:
		return false
	case cc["max-age"] != "" || h.Get("Expires") != "":
		return true
	case status == 300 || status == 301 || status == 308:
		return true
	case status == 200 || status == 203 || status == 401:
		return h.Get("Last-Modified") != "" || h.Get("ETag") != ""
	}
	return false
}

// rfcFresh says whether a stored response may be used without asking the
// server (RFC 9111 §4.2, for a private cache).
func rfcFresh(e *cacheEntry, reqHeader http.Header, now time.Time) bool {
	cc := parseCacheControl(e.Header.Values("Cache-Control"))
	rcc := parseCacheControl(reqHeader.Values("Cache-Control"))
	if _, ok := rcc["no-cache"]; ok {
		return false
	}
	if _, ok := cc["no-cache"]; ok {
		return false
	}
	lifetime := freshnessLifetime(e, cc)
	age := currentAge(e, now)
	if v, ok := seconds(rcc, "max-age"); ok {
		lifetime = min(lifetime, v)
	}
	if v, ok := seconds(rcc, "min-fresh"); ok {
		age += v
	}
	if _, must := cc["must-revalidate"]; !must {
		if v, ok := rcc["max-stale"]; ok {
			if v == "" {
				return true
			}
			if d, ok := seconds(rcc, "max-stale"); ok {
				lifetime += d
			}
		}
	}
	return age < lifetime
}

// freshnessLifetime is max-age, else Expires minus Date, else a tenth of
// the time since Last-Modified, else forever for permanent redirects, else
// nothing.
func freshnessLifetime(e *cacheEntry, cc map[string]string) time.Duration {
	if v, ok := seconds(cc, "max-age"); ok {
		return v
	}
	date := e.StoredAt
	if d, err := http.ParseTime(e.Header.Get("Date")); err == nil {
		date = d
	}
	if exp := e.Header.Get("Expires"); exp != "" {
		t, err := http.ParseTime(exp)
		if err != nil {
			return 0 // an invalid Expires means already expired
		}
		return min(max(t.Sub(date), 0), maxFreshness)
	}
	if lm, err := http.ParseTime(e.Header.Get("Last-Modified")); err == nil && lm.Before(date) {
		return min(date.Sub(lm)/10, maxFreshness)
	}
	if e.Status == 300 || e.Status == 301 || e.Status == 308 {
		return maxFreshness
	}
	return 0
}

// currentAge is the age of a stored response at now (RFC 9111 §4.2.3, with
// the time it was stored as both request and response time).
func currentAge(e *cacheEntry, now time.Time) time.Duration {
	var age time.Duration
	if d, err := http.ParseTime(e.Header.Get("Date")); err == nil && e.StoredAt.After(d) {
		age = e.StoredAt.Sub(d)
	}
	if a, err := strconv.ParseInt(strings.TrimSpace(e.Header.Get("Age")), 10, 64); err == nil && a > 0 {
		age = max(age, time.Duration(min(a, int64(maxFreshness/time.Second)))*time.Second)
	}
	return age + max(now.Sub(e.StoredAt), 0)
}

// mustRevalidate reports whether a stale entry may not be used when the
// server fails.
func (e *cacheEntry) mustRevalidate() bool {
	_, ok := parseCacheControl(e.Header.Values("Cache-Control"))["must-revalidate"]
	return ok
}

// keepOnRevalidation reports whether a 304 may leave entry e as stored,
// without writing it again: e is revalidated every time anyway
// (Cache-Control no-cache, or max-age=0), no --cache-expire counts its age
// from when it was stored, and the 304 names the same validators. A
// nightly recrawl then costs one read of the entry per unchanged page, no
// write (a rename per page was a third of cfetch's system time).
func (c *httpCache) keepOnRevalidation(e *cacheEntry, h http.Header) bool {
	if c.expire > 0 {
		return false
	}
	cc := parseCacheControl(e.Header.Values("Cache-Control"))
	_, noCache := cc["no-cache"]
	if ma, ok := cc["max-age"]; !noCache && !(ok && ma == "0") {
		return false
	}
	for _, v := range []string{"ETag", "Last-Modified"} {
		if got := h.Get(v); got != "" && got != e.Header.Get(v) {
			return false
		}
	}
	return true
}
