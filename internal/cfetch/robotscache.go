package cfetch

import (
	"container/list"
	"fmt"
	"net/url"
	"time"

	"github.com/crawlutils/crawlutils/internal/robots"
)

// How long robots.txt answers are kept.
const (
	// robotsTTL is how long a fetched robots.txt is used (RFC 9309 §2.4:
	// no more than 24 hours).
	robotsTTL = 24 * time.Hour
	// robotsRetryTTL is how long "unavailable" stands before robots.txt is
	// fetched again.
	robotsRetryTTL = time.Minute
	// robotsCacheSize bounds the hosts whose robots.txt is remembered.
	robotsCacheSize = 4096
)

// What a robots.txt fetch decided for a host.
const (
	robotsParsed      = "parsed"      // 2xx: its rules apply
	robotsAllowAll    = "allow_all"   // 4xx, or no usable file: everything is allowed
	robotsUnavailable = "unavailable" // 5xx, 429 or a broken exchange after the retries: nothing is allowed
)

// robotsEntry is one host's robots.txt as cfetch applies it.
type robotsEntry struct {
	state   string
	rules   *robots.Rules // for robotsParsed
	url     string        // the robots.txt URL
	detail  string        // for robotsUnavailable: what went wrong
	expires time.Time
}

// check says whether u may be fetched, and if not, why.
func (e *robotsEntry) check(u *url.URL, agent string) (ok bool, why string) {
	switch e.state {
	case robotsUnavailable:
		return false, fmt.Sprintf("%s is unavailable (%s): nothing may be fetched until it can be read (RFC 9309)", e.url, e.detail)
	case robotsParsed:
		if !e.rules.Allowed(u) {
			return false, fmt.Sprintf("disallowed by %s for user agent %q", e.url, agent)
		}
	}
	return true, ""
}

// crawlDelay is the Crawl-delay of the host's group, 0 when none.
func (e *robotsEntry) crawlDelay() time.Duration {
	if e == nil {
		return 0
	}
	return e.rules.CrawlDelay()
}

// robotsVerdict is what one robots.txt fetch means. unreachable is set
// when no connection could be made (DNS, refused, connect timeout, TLS):
// the host's requests then fail the same way, each through its own
// retries, and nothing is cached. retryable is set for answers worth
// fetching again (5xx, 429, a broken exchange).
type robotsVerdict struct {
	entry       *robotsEntry
	unreachable *FetchError
	retryable   bool
}

// judgeRobots interprets the outcome of fetching robotsURL, following
// RFC 9309 §2.3.1: 2xx is parsed, 4xx allows all, 5xx disallows all.
func judgeRobots(out *outcome, robotsURL, agent string, now time.Time) robotsVerdict {
	e := &robotsEntry{url: robotsURL, expires: now.Add(robotsTTL)}
	switch {
	case out.err != nil && out.err.Code == ErrCacheMiss:
		// --cache-only: no network may be used, and none will be.
		e.state = robotsAllowAll
	case out.err != nil && !out.connected:
		return robotsVerdict{unreachable: out.err}
	case out.err != nil && retryableErrors[out.err.Code]:
		e.state, e.detail, e.expires = robotsUnavailable, out.err.Code+": "+out.err.Detail, now.Add(robotsRetryTTL)
		return robotsVerdict{entry: e, retryable: true}
	case out.err != nil:
		// Too large, broken compression, a bad redirect: no usable file.
		e.state = robotsAllowAll
	case out.status >= 200 && out.status < 300:
		e.state = robotsParsed
		var data []byte
		if out.body != nil {
			data = robots.Head(out.body.data, out.body.truncated)
		}
		e.rules = robots.Parse(data, agent)
	case Unavailable(out.status):
		e.state, e.detail, e.expires = robotsUnavailable, fmt.Sprintf("status %d", out.status), now.Add(robotsRetryTTL)
		return robotsVerdict{entry: e, retryable: true}
	default:
		// 4xx, and 3xx not followed (too many redirects): allow all.
		e.state = robotsAllowAll
	}
	return robotsVerdict{entry: e}
}

// robotsCache remembers robots.txt answers per host key, the least
// recently used dropped past max entries. Not safe for concurrent use: the
// scheduler owns it.
type robotsCache struct {
	max int
	m   map[string]*list.Element
	ll  list.List // of *robotsItem, most recent first
}

type robotsItem struct {
	key   string
	entry *robotsEntry
}

func newRobotsCache(max int) *robotsCache {
	return &robotsCache{max: max, m: map[string]*list.Element{}}
}

// get returns the entry of key and whether it is still fresh at now.
func (c *robotsCache) get(key string, now time.Time) (*robotsEntry, bool) {
	el, ok := c.m[key]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(el)
	e := el.Value.(*robotsItem).entry
	return e, now.Before(e.expires)
}

// put stores e for key. An "unavailable" answer does not replace a usable
// one that has merely expired: RFC 9309 §2.4 lets a crawler keep using
// its copy while the file is unreachable. The old copy is then used until
// e expires, and fetched again after that.
func (c *robotsCache) put(key string, e *robotsEntry) *robotsEntry {
	if el, ok := c.m[key]; ok {
		it := el.Value.(*robotsItem)
		if e.state == robotsUnavailable && it.entry.state != robotsUnavailable {
			kept := *it.entry
			kept.expires = e.expires
			e = &kept
		}
		it.entry = e
		c.ll.MoveToFront(el)
		return e
	}
	c.m[key] = c.ll.PushFront(&robotsItem{key: key, entry: e})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.m, last.Value.(*robotsItem).key)
	}
	return e
}

// len is the number of hosts remembered.
func (c *robotsCache) len() int { return c.ll.Len() }
