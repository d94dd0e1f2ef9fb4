package cfetch

import (
	"container/list"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// cookieJarsMax bounds the crawls whose cookies are kept at once.
const cookieJarsMax = 1024

// Bounds of the cookies kept, as browsers bound them: Chromium keeps 180
// per site (registrable domain) and about 3000 in all, dropping the least
// recently set; curl sends a Cookie header of at most 8190 bytes (what
// Apache and most servers take).
const (
	maxCookiesPerSite   = 180
	maxCookies          = 3000
	maxCookieHeaderSize = 8190
)

// cookieJars keeps one cookie jar per crawl ("crawlid"; requests without
// one share a jar), as Scrapy's CookiesMiddleware keeps one per
// "cookiejar" key. Jars follow RFC 6265 with the public suffix list, so a
// site cannot set cookies for a whole TLD. The least recently used jar is
// dropped past max crawls; the cookies least recently set are dropped
// past maxCookiesPerSite for their site in a jar, and past maxCookies in
// all the jars, so a site setting thousands of new cookies a page grows
// neither the memory nor the Cookie header sent back. Safe for
// concurrent use.
type cookieJars struct {
	mu  sync.Mutex
	max int
	m   map[string]*list.Element // of namedJar, in ll
	ll  list.List
	all list.List // of *keptCookie, the most recently set first
}

type namedJar struct {
	crawl string
	jar   *cookiejar.Jar
	kept  map[cookieKey]*keptCookie
	sites map[string]*list.List // of *keptCookie by site, the most recently set first
}

// keptCookie is a cookie a jar holds, with what it was set with, to
// delete it by setting it again expired: the jar then finds the same
// domain, path and name.
type keptCookie struct {
	jar       *namedJar
	id        cookieKey
	site      string
	u         *url.URL
	name      string
	domain    string // its Domain attribute
	path      string // its Path attribute
	inAll     *list.Element
	inSite    *list.Element
	siteCount *list.List
}

func newCookieJars(max int) *cookieJars {
	return &cookieJars{max: max, m: map[string]*list.Element{}}
}

// jarLocked returns the jar of crawl, creating it when create is set.
func (c *cookieJars) jarLocked(crawl string, create bool) *namedJar {
	if el, ok := c.m[crawl]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*namedJar)
	}
	if !create {
		return nil
	}
	j, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	nj := &namedJar{crawl: crawl, jar: j, kept: map[cookieKey]*keptCookie{}, sites: map[string]*list.List{}}
	c.m[crawl] = c.ll.PushFront(nj)
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		old := last.Value.(*namedJar)
		delete(c.m, old.crawl)
		for _, k := range old.kept {
			c.all.Remove(k.inAll)
		}
	}
	return nj
}

// header is the Cookie header value the crawl's jar has for u, or "": the
// cookies in the jar's order (longest path first) as long as the header
// stays within maxCookieHeaderSize, as curl sends them.
func (c *cookieJars) header(crawl string, u *url.URL) string {
	c.mu.Lock()
	nj := c.jarLocked(crawl, false)
	c.mu.Unlock()
	if nj == nil {
		return ""
	}
	var b strings.Builder
	for _, ck := range nj.jar.Cookies(u) {
		// The value as it was set, quotes included (parseSetCookie);
		// a cookie without a name is its value alone (RFC 6265bis §5.8.3).
		part := ck.Value
		if ck.Name != "" {
			part = ck.Name + "=" + ck.Value
		}
		if b.Len() > 0 {
			if b.Len()+2+len(part) > maxCookieHeaderSize {
				break
			}
			b.WriteString("; ")
		} else if len(part) > maxCookieHeaderSize {
			break
		}
		b.WriteString(part)
	}
	return b.String()
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
	if len(cookies) == 0 || u.Scheme != "http" && u.Scheme != "https" {
		return
	}
	from := *u
	c.mu.Lock()
	defer c.mu.Unlock()
	nj := c.jarLocked(crawl, true)
	nj.jar.SetCookies(&from, cookies)
	for _, ck := range cookies {
		id, host, ok := cookieID(&from, ck)
		if !ok {
			continue // refused by the jar
		}
		site := cookieSite(host)
		if old := nj.kept[id]; old != nil {
			c.forgetLocked(old)
		}
		if ck.MaxAge < 0 || ck.MaxAge == 0 && !ck.Expires.IsZero() && !ck.Expires.After(now) {
			continue // deleted
		}
		k := &keptCookie{jar: nj, id: id, site: site, u: &from, name: ck.Name, domain: ck.Domain, path: ck.Path}
		k.siteCount = nj.sites[site]
		if k.siteCount == nil {
			k.siteCount = &list.List{}
			nj.sites[site] = k.siteCount
		}
		k.inSite = k.siteCount.PushFront(k)
		k.inAll = c.all.PushFront(k)
		nj.kept[id] = k
		if k.siteCount.Len() > maxCookiesPerSite {
			c.dropLocked(k.siteCount.Back().Value.(*keptCookie))
		}
	}
	for c.all.Len() > maxCookies {
		c.dropLocked(c.all.Back().Value.(*keptCookie))
	}
}

// dropLocked deletes k from its jar.
func (c *cookieJars) dropLocked(k *keptCookie) {
	k.jar.jar.SetCookies(k.u, []*http.Cookie{{Name: k.name, Domain: k.domain, Path: k.path, MaxAge: -1}})
	c.forgetLocked(k)
}

// forgetLocked takes k out of the counts.
func (c *cookieJars) forgetLocked(k *keptCookie) {
	c.all.Remove(k.inAll)
	k.siteCount.Remove(k.inSite)
	if k.siteCount.Len() == 0 {
		delete(k.jar.sites, k.site)
	}
	delete(k.jar.kept, k.id)
}

// cookieSite is the site a cookie set by host counts against, as
// cookiejar groups them: its registrable domain (eTLD+1), or host itself.
func cookieSite(host string) string {
	if s, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return s
	}
	return host
}

// cookieID names the cookie ck from u as cookiejar names it (domain, path
// and name: a cookie set again with the same three replaces it), and
// reports false for one cookiejar refuses: a Domain that is not the host
// or a parent of it below its public suffix (RFC 6265 §5.3). It follows
// cookiejar's own checks, which FuzzCookieID holds it to.
func cookieID(u *url.URL, ck *http.Cookie) (id cookieKey, host string, ok bool) {
	host, ok = cookieHost(u.Host)
	if !ok {
		return cookieKey{}, "", false
	}
	domain := host
	if ck.Domain != "" {
		if domain, ok = cookieDomain(host, ck.Domain); !ok {
			return cookieKey{}, "", false
		}
	}
	path := ck.Path
	if path == "" || path[0] != '/' {
		path = "/"
		if i := strings.LastIndex(u.Path, "/"); i > 0 {
			path = u.Path[:i]
		}
	}
	return cookieKey{domain, path, ck.Name}, host, true
}

// cookieKey is what names a cookie in a jar.
type cookieKey struct{ domain, path, name string }

// cookieHost is the host of a URL as cookiejar takes it: its port
// dropped ("[::1]" keeps its brackets, "[::1]:80" does not), its final
// dot too, in Punycode, lower-cased.
func cookieHost(hostport string) (string, bool) {
	host := hostport
	if n := strings.Count(host, ":"); n == 1 || n > 1 && host[0] == '[' && strings.Contains(host, "]:") {
		var err error
		if host, _, err = net.SplitHostPort(host); err != nil {
			return "", false
		}
	}
	host, err := idna.Punycode.ToASCII(strings.TrimSuffix(host, "."))
	if err != nil {
		return "", false
	}
	return strings.ToLower(host), true
}

// cookieDomain is the domain of a cookie with the Domain attribute attr
// set by host, as cookiejar takes it.
func cookieDomain(host, attr string) (string, bool) {
	if strings.ContainsAny(host, ":%") || net.ParseIP(host) != nil {
		return host, host == attr
	}
	domain := strings.TrimPrefix(attr, ".")
	if domain == "" || domain[0] == '.' || domain[len(domain)-1] == '.' {
		return "", false
	}
	for i := 0; i < len(domain); i++ {
		if domain[i] >= utf8.RuneSelf {
			return "", false
		}
	}
	domain = strings.ToLower(domain)
	if ps := publicsuffix.List.PublicSuffix(domain); ps != "" && !strings.HasSuffix(domain, "."+ps) {
		return host, host == domain
	}
	return domain, host == domain || strings.HasSuffix(host, "."+domain)
}
