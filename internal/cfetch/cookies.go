package cfetch

import (
	"container/list"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// cookieJarsMax bounds the crawls whose cookies are kept at once.
const cookieJarsMax = 1024

// cookieJars keeps one cookie jar per crawl ("crawlid"; requests without
// one share a jar), as Scrapy's CookiesMiddleware keeps one per
// "cookiejar" key. Jars follow RFC 6265 with the public suffix list, so a
// site cannot set cookies for a whole TLD. The least recently used jar is
// dropped past max crawls. Safe for concurrent use.
type cookieJars struct {
	mu  sync.Mutex
	max int
	m   map[string]*list.Element
	ll  list.List
}

type namedJar struct {
	crawl string
	jar   *cookiejar.Jar
}

func newCookieJars(max int) *cookieJars {
	return &cookieJars{max: max, m: map[string]*list.Element{}}
}

// jar returns the jar of crawl, creating it when create is set.
func (c *cookieJars) jar(crawl string, create bool) *cookiejar.Jar {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[crawl]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*namedJar).jar
	}
	if !create {
		return nil
	}
	j, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	c.m[crawl] = c.ll.PushFront(&namedJar{crawl: crawl, jar: j})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.m, last.Value.(*namedJar).crawl)
	}
	return j
}

// header is the Cookie header value the crawl's jar has for u, or "".
func (c *cookieJars) header(crawl string, u *url.URL) string {
	j := c.jar(crawl, false)
	if j == nil {
		return ""
	}
	cookies := j.Cookies(u)
	if len(cookies) == 0 {
		return ""
	}
	parts := make([]string, len(cookies))
	for i, ck := range cookies {
		// The value as it was set, quotes included (parseSetCookie);
		// a cookie without a name is its value alone (RFC 6265bis §5.8.3).
		parts[i] = ck.Value
		if ck.Name != "" {
			parts[i] = ck.Name + "=" + ck.Value
		}
	}
	return strings.Join(parts, "; ")
}

// store keeps the cookies set by a response from u, read as browsers
// read them (parseSetCookie).
func (c *cookieJars) store(crawl string, u *url.URL, h http.Header) {
	var cookies []*http.Cookie
	now := time.Now()
	for _, line := range h.Values("Set-Cookie") {
		if ck, ok := parseSetCookie(line, now); ok {
			cookies = append(cookies, ck)
		}
	}
	if len(cookies) > 0 {
		c.jar(crawl, true).SetCookies(u, cookies)
	}
}
