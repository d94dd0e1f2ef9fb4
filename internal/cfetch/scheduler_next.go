package cfetch

import (
	"time"
)

// startable reports whether h's next job may start at now.
func (s *scheduler) startable(h *host, now time.Time) bool {
	if len(h.queue) == 0 || h.active >= s.opts.PerHost || h.unsent > 0 || h.rest.Resting(now) {
		return false
	}
	if h.robotsPending && h.queue.peek().robotsFor == "" {
		return false // wait for robots.txt
	}
	return !h.readyAt(now).After(now)
}

// next returns a job that may start now, counted as running, or nil.
// Among the hosts that may start one, the job of highest priority (then
// the oldest) goes first.
func (s *scheduler) next(now time.Time) *job {
	for s.active < s.opts.Concurrency {
		var best *host
		for _, h := range s.pending {
			if h.nextTry.After(now) {
				continue
			}
			s.promote(h, now)
			s.needRobots(h, now)
			if !s.startable(h, now) {
				h.nextTry = s.hostWake(h, now)
				continue
			}
			if best == nil || before(h, best) {
				best = h
			}
		}
		if best == nil {
			return nil
		}
		j := best.queue.pop()
		if len(best.queue) == 0 && len(best.waiting) == 0 {
			s.unlist(best)
		}
		if s.denied(best, j, now) {
			continue // a retry whose host's robots.txt changed meanwhile
		}
		s.start(best, j, now)
		return j
	}
	return nil
}

// before reports whether host a's next job should start before host b's:
// higher priority first; then the host with fewer exchanges running (as
// Scrapy's DownloaderAwarePriorityQueue does, so that the slots spread
// over the hosts); then the older job.
func before(a, b *host) bool {
	ja, jb := a.queue.peek(), b.queue.peek()
	if pa, pb := ja.priority(), jb.priority(); pa != pb {
		return pa > pb
	}
	if a.active != b.active {
		return a.active < b.active
	}
	return ja.seq < jb.seq
}

// wake returns when next may have a job to start without another event,
// or the zero time when only a finishing job or new input can change that.
func (s *scheduler) wake(now time.Time) time.Time {
	if s.active >= s.opts.Concurrency {
		return time.Time{}
	}
	var at time.Time
	for _, h := range s.pending {
		t := h.nextTry
		if !t.After(now) {
			t = s.hostWake(h, now)
		}
		if !t.IsZero() && (at.IsZero() || t.Before(at)) {
			at = t
		}
	}
	return at
}

// hostWake is when h may start a job without another event, or the zero
// time when only an event can change that (its exchanges at --per-host, a
// request's send awaited, or robots.txt awaited).
func (s *scheduler) hostWake(h *host, now time.Time) time.Time {
	if h.active >= s.opts.PerHost || h.unsent > 0 {
		return time.Time{}
	}
	var t time.Time
	if len(h.queue) > 0 && !(h.robotsPending && h.queue.peek().robotsFor == "") {
		t = now
	}
	if len(h.waiting) > 0 && (t.IsZero() || h.waiting[0].notBefore.Before(t)) {
		t = h.waiting[0].notBefore
	}
	if t.IsZero() {
		return t
	}
	if until := h.rest.Until(); until.After(t) {
		t = until
	}
	return h.readyAt(t)
}
