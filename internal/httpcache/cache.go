package httpcache

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// The policies: which responses are stored and when an entry answers.
const (
	// Dummy stores every response and answers whenever an entry exists.
	Dummy = "dummy"
	// RFC9111 stores and answers as an HTTP private cache does.
	RFC9111 = "rfc9111"
)

// Options configure a Cache.
type Options struct {
	Dir         string        // the cache's directory, created when missing
	Policy      string        // Dummy or RFC9111; "" is Dummy
	Expire      time.Duration // entries this old are misses; 0: never
	IgnoreCodes []int         // statuses never stored
	// Fresh, with RFC9111, lets an entry the server declared fresh
	// (Cache-Control max-age, Expires) answer without asking it. Without
	// it every entry is asked again (revalidated): a crawl wants the page
	// as it is now, and a cache only saves the body a 304 does not send.
	Fresh bool
}

// Cache is an on-disk HTTP cache (see the package comment). Its methods
// are safe for concurrent use, and by several processes sharing Dir.
type Cache struct {
	dir    string
	policy string
	expire time.Duration
	ignore map[int]bool
	fresh  bool

	// Count, when set before the cache is used, is told each event:
	// "miss", "hit", "stale", "stored", "store_failed", "revalidated".
	Count func(event string)
}

// Open makes the directory o.Dir names, when missing, and returns its
// cache. Its error is the directory's.
func Open(o Options) (*Cache, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	c := &Cache{dir: o.Dir, policy: o.Policy, expire: o.Expire, ignore: map[int]bool{}, fresh: o.Fresh}
	if c.policy == "" {
		c.policy = Dummy
	}
	for _, code := range o.IgnoreCodes {
		c.ignore[code] = true
	}
	return c, nil
}

// Policy is the cache's policy, Dummy or RFC9111.
func (c *Cache) Policy() string { return c.policy }

// Request is the exchange an entry answers: its method, URL and body make
// the key; its header's Cache-Control directives count with RFC9111.
type Request struct {
	Method string
	URL    string
	Body   string
	Header http.Header
}

// Response is what Store keeps of a response: the body as the caller
// decoded it (Encoded: still in a content coding the caller could not
// decode).
type Response struct {
	Status  int
	Header  http.Header
	Body    []byte
	Encoded bool
}

// Key is the key of a request: the hex SHA-1 of "METHOD URL\nBODY".
func Key(method, url, body string) string {
	h := sha1.New()
	h.Write([]byte(method))
	h.Write([]byte{' '})
	h.Write([]byte(url))
	h.Write([]byte{'\n'})
	h.Write([]byte(body))
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) paths(key string) (meta, body string) {
	base := filepath.Join(c.dir, key[:2], key)
	return base + ".json", base + ".body"
}

func (c *Cache) counter(event string) {
	if c.Count != nil {
		c.Count(event)
	}
}

// Cacheable reports whether r may be stored and answered: any request
// with the Dummy policy; GET and HEAD without "Cache-Control: no-store"
// with RFC9111.
func (c *Cache) Cacheable(r *Request) bool {
	if c.policy == Dummy {
		return true
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	_, noStore := parseCacheControl(r.Header.Values("Cache-Control"))["no-store"]
	return !noStore
}

// Lookup returns r's entry and whether it may answer r at now without
// asking the server: with Dummy always; with RFC9111 only with
// Options.Fresh, while the server's own lifetime says it is fresh. An
// entry that may not answer is stale: ask the server, with
// e.Conditional's validators. The entry is nil when there is none, it is
// Expire old, or it cannot be read.
func (c *Cache) Lookup(r *Request, now time.Time) (e *Entry, fresh bool) {
	e = c.load(r, now)
	if e == nil {
		c.counter("miss")
		return nil, false
	}
	if c.policy == Dummy || c.fresh && rfcFresh(e, r.Header, now) {
		c.counter("hit")
		return e, true
	}
	c.counter("stale")
	return e, false
}

// load reads r's entry, or nil.
func (c *Cache) load(r *Request, now time.Time) *Entry {
	key := Key(r.Method, r.URL, r.Body)
	metaPath, bodyPath := c.paths(key)
	b, err := os.ReadFile(metaPath)
	if err != nil {
		return nil
	}
	e, err := decodeCacheMeta(b)
	if err != nil || e.Key != key || (c.expire > 0 && now.Sub(e.StoredAt) >= c.expire) {
		return nil
	}
	data, err := os.ReadFile(bodyPath)
	if err != nil || int64(len(data)) != e.Size {
		return nil
	}
	e.Body = data
	return e
}

// Store writes resp as r's entry at now, when the policy allows: not a
// status of IgnoreCodes; with RFC9111, only what RFC 9111 lets a private
// cache store. A failure to write is counted ("store_failed"), not
// returned: the cache is an optimization.
func (c *Cache) Store(r *Request, resp *Response, now time.Time) {
	if c.ignore[resp.Status] {
		return
	}
	if c.policy == RFC9111 && !rfcStorable(r.Header, resp.Status, resp.Header) {
		return
	}
	data := resp.Body
	if data == nil {
		// No body (a followed redirect's) is stored as an empty file:
		// write(e, nil) would keep the body file there is, and without
		// one the entry is a miss.
		data = []byte{}
	}
	sum := sha1.Sum(data)
	e := &Entry{
		Key: Key(r.Method, r.URL, r.Body), Method: r.Method, URL: r.URL, Status: resp.Status,
		Header: resp.Header, StoredAt: now.UTC(), Size: int64(len(data)),
		SHA1: hex.EncodeToString(sum[:]), Encoded: resp.Encoded,
	}
	if err := c.write(e, data); err == nil {
		c.counter("stored")
	} else {
		c.counter("store_failed")
	}
}

func (c *Cache) write(e *Entry, data []byte) error {
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

// Revalidated applies a 304 Not Modified (with header h) to the stale
// entry e at now: e's headers are updated from the 304's (RFC 9111
// §4.3.4) and e is stored again, unless nothing would change what the
// next lookup decides (see keepOnRevalidation). e then answers the
// request.
func (c *Cache) Revalidated(e *Entry, h http.Header, now time.Time) {
	c.counter("revalidated")
	if c.keepOnRevalidation(e, h) {
		return
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
}

// keepOnRevalidation reports whether a 304 may leave entry e as stored,
// without writing it again: e is revalidated every time anyway (without
// Options.Fresh, or Cache-Control no-cache, or max-age=0), no Expire
// counts its age from when it was stored, and the 304 names the same
// validators. A nightly
// recrawl then costs one read of the entry per unchanged page, no write
// (a rename per page was a third of cfetch's system time).
func (c *Cache) keepOnRevalidation(e *Entry, h http.Header) bool {
	if c.expire > 0 {
		return false
	}
	cc := parseCacheControl(e.Header.Values("Cache-Control"))
	_, noCache := cc["no-cache"]
	if ma, ok := cc["max-age"]; c.fresh && !noCache && !(ok && ma == "0") {
		return false
	}
	for _, v := range []string{"ETag", "Last-Modified"} {
		if got := h.Get(v); got != "" && got != e.Header.Get(v) {
			return false
		}
	}
	return true
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
