package cfetch

import (
	"net/http"
	"net/url"
	"time"
)

// denied answers j and reports true when h's robots.txt is known and
// denies it.
func (s *scheduler) denied(h *host, j *job, now time.Time) bool {
	if j.robotsFor != "" || s.robots == nil {
		return false
	}
	e, fresh := s.robots.get(h.key, now)
	if !fresh {
		return false
	}
	if ok, why := e.check(j.url, s.agent); !ok {
		s.answers = append(s.answers, s.deny(j, why))
		return true
	}
	return false
}

// deny makes the answer of a request robots.txt disallows.
func (s *scheduler) deny(j *job, why string) answer {
	if s.count != nil {
		s.count("robots", "denied")
	}
	return answer{j: j, out: &outcome{url: j.url.String(), err: fetchErr(ErrRobots, "%s", why)}}
}

// robotsFresh reports whether h's robots.txt is known and fresh (or not
// needed).
func (s *scheduler) robotsFresh(h *host, now time.Time) bool {
	if s.robots == nil {
		return true
	}
	_, fresh := s.robots.get(h.key, now)
	return fresh
}

// needRobots queues a robots.txt fetch for h, through h's own queue, when
// h has requests and its robots.txt is not known.
func (s *scheduler) needRobots(h *host, now time.Time) {
	if s.robots == nil || h.robotsPending || len(h.queue) == 0 || s.robotsFresh(h, now) {
		return
	}
	base := h.queue.peek()
	ru := &url.URL{Scheme: base.url.Scheme, Host: base.url.Host, Path: "/robots.txt"}
	rj := &job{robotsFor: h.key, method: http.MethodGet, proxy: base.proxy}
	rj.setURL(ru)
	rj.key = h.key
	s.seq++
	rj.seq = s.seq
	h.queue.push(rj)
	h.robotsPending = true
}

// robotsDone applies the answer of a robots.txt fetch to its host.
func (s *scheduler) robotsDone(h *host, rj *job, v robotsVerdict, now time.Time) {
	h.robotsPending = false
	h.touch()
	if s.count != nil {
		s.count("robots", "fetches")
	}
	switch {
	case s.interrupted:
		return
	case v.unreachable != nil:
		// The host cannot be reached: its requests fail the same way, each
		// through its own retries.
		s.failQueued(h, v.unreachable, now)
		return
	case v.retryable && rj.retries < s.opts.Retries:
		rj.retries++
		rj.notBefore = now.Add(s.retryBackoff(rj))
		h.robotsPending = true
		s.wait(h, rj)
		return
	}
	if s.count != nil {
		s.count("robots", v.entry.state)
	}
	e := s.robots.put(h.key, v.entry)
	h.crawlDelay = min(e.crawlDelay(), s.opts.ThrottleMax)
	if s.opts.AutoThrottle {
		h.throttle = s.at.Clamp(h.throttle, h.crawlDelay)
	}
	s.setRate(h, now)
	// Answer the queued requests robots.txt denies.
	s.filter(h, func(j *job) bool {
		if j.robotsFor != "" {
			return true
		}
		if ok, why := e.check(j.url, s.agent); !ok {
			s.answers = append(s.answers, s.deny(j, why))
			return false
		}
		return true
	})
}

// failQueued gives each queued request of h the error err as the outcome
// of an attempt: retried after a backoff when it may be, else answered.
func (s *scheduler) failQueued(h *host, err *FetchError, now time.Time) {
	var retry []*job
	s.filter(h, func(j *job) bool {
		if j.robotsFor != "" {
			return true
		}
		o := &outcome{url: j.url.String(), err: &FetchError{Code: err.Code, Detail: err.Detail}}
		if again, _, _, _ := s.retry.decide(o, j.req.Retries+j.retries, now); again {
			j.last = o
			retry = append(retry, j)
		} else {
			s.answers = append(s.answers, answer{j: j, out: o})
		}
		return false
	})
	for _, j := range retry {
		j.retries++
		j.notBefore = now.Add(s.retryBackoff(j))
		s.add(j, now)
	}
}
