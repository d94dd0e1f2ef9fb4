package cfetch

import (
	"context"
	"net/http/httptrace"
	"time"
)

// The delay between two requests to a host (--delay, Crawl-delay,
// AutoThrottle) is counted at the wire: from the moment the previous
// request was written to its connection, not from the scheduler's
// decision to start it. Between the two a worker may run late (a loaded
// machine deschedules it, a connection is dialled): counted from the
// decision, a request that left late was followed by the next one less
// than the delay after it.
//
// So a host with a delay starts a job, then starts nothing more until that
// job's request is written (or its exchange ends without one: a cache hit,
// a failed dial); the write's time becomes the host's last start, and the
// next start is the delay after it. A host without a delay is not held.
//
// A robots.txt Crawl-delay is the site's own demand, measured where the
// site sees requests: on their arrival. A request written at t may arrive
// later than t, by a varying amount (measured on loopback: 3–120 µs
// on a quiet machine, up to tens of milliseconds when the receiving
// kernel's network processing runs late on a loaded one), so two requests
// written a Crawl-delay apart can arrive less than that apart. The one
// moment cfetch knows a request has arrived is when its answer begins to
// come back; so a host with a Crawl-delay (and every robots.txt fetch,
// which may bring one) counts from the first byte of the previous
// answer, or from the end of an exchange that got none. That costs each
// request on such a host one response latency more than the delay: as
// Heritrix, which counts its politeness delay from the end of a fetch.

// wire returns the context of j's next exchange: when j's host has a
// delay, it reports the moment the request is written (sent).
func (p *pipeline) wire(j *job) context.Context {
	if p.lag != nil {
		p.lag(j)
	}
	if j.paced == nil && j.robotsFor == "" {
		return p.fetchCtx
	}
	start := j.thisStart
	if j.atArrival || j.robotsFor != "" {
		return httptrace.WithClientTrace(p.fetchCtx, &httptrace.ClientTrace{
			GotFirstResponseByte: func() { p.sent(j, start, time.Now()) },
		})
	}
	return httptrace.WithClientTrace(p.fetchCtx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { p.sent(j, start, time.Now()) },
	})
}

// sent tells the scheduler that the exchange of j started at start wrote
// its request at at, and wakes the loop to plan the host's next start.
func (p *pipeline) sent(j *job, start, at time.Time) {
	p.mu.Lock()
	p.sched.sent(j, start, at)
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// pace marks j, just started on h, as awaiting its send when h has a
// delay: h starts nothing more until sent or unpace.
func (s *scheduler) pace(h *host, j *job) {
	if h.lim == nil {
		return
	}
	j.paced = h
	j.atArrival = h.crawlDelay > 0
	h.unsent++
}

// sent moves the host's last start to the moment j's request was written,
// and spends the delay from there. start tells which exchange of j wrote
// (a retry or a redirect hop of j may have started since); a late or
// repeated report changes nothing.
func (s *scheduler) sent(j *job, start, at time.Time) {
	if !j.thisStart.Equal(start) {
		return
	}
	h := j.paced
	switch {
	case h != nil:
		s.unpace(j)
	case j.robotsFor != "":
		if h = s.hosts[j.robotsFor]; h == nil {
			return
		}
	default:
		return
	}
	if at.After(h.lastStart) {
		h.lastStart = at
		if h.lim != nil {
			s.setRate(h, at)
		}
	}
	h.touch()
}

// ended is the end of j's exchange at now: a host counting from arrivals
// whose exchange got no answer counts from now (the request may have
// arrived all the same); any other host still waiting for j's report is
// released without one (none was written, or the report is yet to come).
func (s *scheduler) ended(j *job, now time.Time) {
	if j.paced != nil && j.atArrival {
		s.sent(j, j.thisStart, now)
		return
	}
	s.unpace(j)
}

// unpace releases the host of a paced job whose exchange ended without a
// report of its send (none was written, or the report is yet to come).
func (s *scheduler) unpace(j *job) {
	if h := j.paced; h != nil {
		h.unsent--
		j.paced = nil
	}
}
