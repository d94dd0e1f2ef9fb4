package cfetch

import (
	"container/heap"
	"math/rand/v2"
	"net/url"
	"slices"
	"time"

	"github.com/crawlutils/crawlutils/internal/hostpace"
)

// answer is a job to be answered without another fetch: denied by
// robots.txt, its host unreachable, or cut short by an interrupt.
type answer struct {
	j   *job
	out *outcome
	// release: write the request back as it was read instead of a
	// response. An interrupt does this for a leased request it stops
	// before its last exchange (never started, or between a retry or
	// redirect): the crawl loop's cqueue push then hands it out again at
	// once. Answering it with its last exchange (a 503, a redirect) would
	// settle its lease, and the page would never be fetched.
	release bool
}

// scheduler decides when each job starts: per-host queues (by priority,
// then arrival), at most PerHost exchanges per host and Concurrency in
// all, the host's delay between starts (fixed, AutoThrottle, Crawl-delay,
// randomized), the rests of hosts in trouble (scheduler_rest.go), each
// retry's backoff, and robots.txt, fetched through the same queue before
// anything else on the host.
//
// It is a state machine with the time passed in: no goroutines, no
// clock, no sleeping. The pipeline calls add for each job, next to start
// jobs, finish for each report, and wake to know when to call next again.
// Not safe for concurrent use.
type scheduler struct {
	opts       *Options
	at         hostpace.AutoThrottle
	restPolicy hostpace.RestPolicy
	retry      retryPolicy
	robots     *robotsCache // nil: robots.txt is not obeyed
	agent      string

	hosts   map[string]*host
	pending []*host // hosts with queued or waiting jobs

	active      int // exchanges running, robots.txt included
	held        int // input records read and not yet written
	seq         uint64
	interrupted bool
	lastSweep   time.Time

	// answers are the jobs to answer without another fetch (denied by
	// robots.txt, host unreachable, cut short by an interrupt), collected
	// by every method; the pipeline takes them with takeAnswers.
	answers []answer

	rand  func() float64          // jitter in [0, 1); tests fix it
	debug func(line string)       // --autothrottle-debug, when set
	count func(group, key string) // stats counters, when set
	// throttled, when set, is told each host's AutoThrottle delay as it
	// changes (the pacing of rendered pages' requests, render_pace.go).
	throttled func(key string, d time.Duration)
	// shared, when set, is told each time a host's rest begins or
	// lengthens: the host's key, the URL that answered, the rest's end.
	shared func(key string, u *url.URL, until time.Time)
}

func newScheduler(o *Options) *scheduler {
	s := &scheduler{
		opts:       o,
		at:         newAutoThrottle(o),
		restPolicy: hostpace.RestPolicy{Backoff: o.RestBackoff, RetryAfterMax: o.RetryAfterMax},
		retry:      newRetryPolicy(o),
		hosts:      map[string]*host{},
		rand:       rand.Float64,
	}
	if o.RobotsObey {
		s.robots = newRobotsCache(robotsCacheSize)
		s.agent = o.robotsAgent()
	}
	return s
}

// hold counts one input record as held (read and not yet written).
func (s *scheduler) hold() { s.held++ }

// takeAnswers returns the jobs to answer at once, and forgets them.
func (s *scheduler) takeAnswers() []answer {
	a := s.answers
	s.answers = nil
	return a
}

// add queues a job (new, a redirect hop, or a retry), or answers it at
// once when robots.txt, already known, denies it.
func (s *scheduler) add(j *job, now time.Time) {
	if s.interrupted && j.robotsFor == "" {
		s.answers = append(s.answers, s.cut(j))
		return
	}
	h := s.host(j.key, now)
	if s.denied(h, j, now) {
		return
	}
	if j.seq == 0 {
		s.seq++
		j.seq = s.seq
	}
	if j.notBefore.After(now) {
		s.wait(h, j)
		return
	}
	h.queue.push(j)
	h.touch()
	s.list(h)
}

func (s *scheduler) list(h *host) {
	if !h.listed {
		h.listed = true
		s.pending = append(s.pending, h)
	}
}

// cut makes the answer of a job that an interrupt stopped between two
// exchanges: its last one, with a warning.
func (s *scheduler) cut(j *job) answer {
	if j.req.Lease != "" {
		return answer{j: j, release: true}
	}
	out := j.last
	if out == nil {
		out = &outcome{url: j.url.String(), err: fetchErr(ErrNetwork, "interrupted before the request was sent")}
	}
	if n := len(j.redirects); n > 0 && out.err == nil && j.redirects[n-1].URL == out.url {
		// The redirect was not followed after all: its response is the result.
		j.redirects = j.redirects[:n-1]
	}
	j.warnings = append(j.warnings, "not retried or followed: interrupted")
	return answer{j: j, out: out}
}

// promote moves the host's waiting jobs that are due into its queue.
func (s *scheduler) promote(h *host, now time.Time) {
	n := 0
	for n < len(h.waiting) && !h.waiting[n].notBefore.After(now) {
		h.queue.push(h.waiting[n])
		h.waiting[n] = nil
		n++
	}
	if n > 0 {
		h.waiting = h.waiting[n:]
	}
}

func (s *scheduler) unlist(h *host) {
	h.listed = false
	if i := slices.Index(s.pending, h); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+1)
	}
}

// wait puts j in h's waiting list, ordered by notBefore.
func (s *scheduler) wait(h *host, j *job) {
	i, _ := slices.BinarySearchFunc(h.waiting, j, func(a, b *job) int { return a.notBefore.Compare(b.notBefore) })
	h.waiting = slices.Insert(h.waiting, i, j)
	h.touch()
	s.list(h)
}

// filter keeps the queued and waiting jobs of h for which keep is true.
func (s *scheduler) filter(h *host, keep func(*job) bool) {
	q := h.queue[:0]
	for _, j := range h.queue {
		if keep(j) {
			q = append(q, j)
		}
	}
	clear(h.queue[len(q):])
	h.queue = q
	heap.Init(&h.queue)
	h.waiting = slices.DeleteFunc(h.waiting, func(j *job) bool { return !keep(j) })
	if len(h.queue) == 0 && len(h.waiting) == 0 && h.listed {
		s.unlist(h)
	}
}

// interrupt stops the run: jobs never started are dropped (returned in
// dropped) unless leased, then released (see answer); jobs between two
// exchanges are answered with their last one, or released when leased;
// queued robots.txt fetches are forgotten. Running exchanges go on.
func (s *scheduler) interrupt() (dropped []*job) {
	s.interrupted = true
	for _, h := range s.pending {
		jobs := append([]*job(h.queue), h.waiting...)
		h.queue, h.waiting, h.listed = nil, nil, false
		for _, j := range jobs {
			switch {
			case j.robotsFor != "":
				h.robotsPending = false
			case j.started.IsZero() && j.req.Lease != "":
				s.answers = append(s.answers, answer{j: j, release: true})
			case j.started.IsZero():
				s.held--
				dropped = append(dropped, j)
			default:
				s.answers = append(s.answers, s.cut(j))
			}
		}
	}
	s.pending = nil
	return dropped
}

// done reports whether nothing is held or running.
func (s *scheduler) done() bool { return s.held == 0 && s.active == 0 }
