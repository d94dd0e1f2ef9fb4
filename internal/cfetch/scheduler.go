package cfetch

import (
	"container/heap"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
	"golang.org/x/time/rate"
)

// hostIdleTTL is how long an idle host's state (delay, AutoThrottle,
// backoff) is kept; then it is forgotten, so memory does not grow with the
// number of hosts seen. robots.txt answers are kept apart (robotsCache).
const hostIdleTTL = time.Minute

// host is the politeness state of one host:port.
type host struct {
	key     string
	queue   jobQueue // ready to start
	waiting []*job   // retries not before some time, earliest first
	active  int      // exchanges running

	lim        *rate.Limiter // the delay between starts; nil for none
	delay      time.Duration // the current delay, before jitter
	throttle   time.Duration // AutoThrottle's delay
	crawlDelay time.Duration // robots.txt Crawl-delay, capped
	lastStart  time.Time

	pausedUntil time.Time // 429/503 and Retry-After
	streak      int       // retryable failures in a row

	robotsPending bool // a robots.txt fetch is queued or running
	listed        bool // in scheduler.pending
	idleSince     time.Time

	// nextTry, when set, is a time before which nothing can start on the
	// host unless something happens to it (a job added, an exchange
	// ended, its delay changed): next and wake skip it until then, so a
	// crawl with many delayed hosts does not re-examine each on every
	// event. Reset by touch.
	nextTry time.Time
}

// touch forgets h.nextTry: something changed.
func (h *host) touch() { h.nextTry = time.Time{} }

// finishKind says what became of a job handed to a worker or the emitter.
type finishKind int

const (
	finDone     finishKind = iota // the worker wrote the response record
	finRetry                      // retry the hop after a wait
	finRedirect                   // fetch the job's next hop
	finRobots                     // a robots.txt fetch ended
	finEmitted                    // the emitter wrote a held record
)

// finish is a worker's report to the scheduler: what to do with the job,
// and what the exchange says about the host.
type finish struct {
	kind finishKind
	j    *job
	key  string // the host the exchange ran on

	status        int
	latency       time.Duration
	size          int64
	cached        bool // answered from the HTTP cache: no network used
	failed        bool // a failure worth a retry (network error, retry code)
	retryAfter    time.Duration
	hasRetryAfter bool
	robots        robotsVerdict
	resp          *record.Response // finDone: the record, for the worker to write
}

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
// randomized), 429/503 pauses, retry backoff, and robots.txt, fetched
// through the same queue before anything else on the host.
//
// It is a state machine with the time passed in: no goroutines, no
// clock, no sleeping. The pipeline calls add for each job, next to start
// jobs, finish for each report, and wake to know when to call next again.
// Not safe for concurrent use.
type scheduler struct {
	opts   *Options
	at     autoThrottle
	retry  retryPolicy
	robots *robotsCache // nil: robots.txt is not obeyed
	agent  string

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
}

func newScheduler(o *Options) *scheduler {
	s := &scheduler{
		opts:  o,
		at:    newAutoThrottle(o),
		retry: newRetryPolicy(o),
		hosts: map[string]*host{},
		rand:  rand.Float64,
	}
	if o.RobotsObey {
		s.robots = newRobotsCache(robotsCacheSize)
		s.agent = o.robotsAgent()
	}
	return s
}

// host returns the state of key, creating it.
func (s *scheduler) host(key string, now time.Time) *host {
	h := s.hosts[key]
	if h == nil {
		h = &host{key: key, idleSince: now}
		if s.opts.AutoThrottle {
			h.throttle = s.at.start
		}
		s.hosts[key] = h
		s.setRate(h, now)
	}
	return h
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

func (s *scheduler) list(h *host) {
	if !h.listed {
		h.listed = true
		s.pending = append(s.pending, h)
	}
}

// deny makes the answer of a request robots.txt disallows.
func (s *scheduler) deny(j *job, why string) answer {
	if s.count != nil {
		s.count("robots", "denied")
	}
	return answer{j: j, out: &outcome{url: j.url.String(), err: fetchErr(ErrRobots, "%s", why)}}
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

// startable reports whether h's next job may start at now.
func (s *scheduler) startable(h *host, now time.Time) bool {
	if len(h.queue) == 0 || h.active >= s.opts.PerHost || now.Before(h.pausedUntil) {
		return false
	}
	if h.robotsPending && h.queue.peek().robotsFor == "" {
		return false // wait for robots.txt
	}
	return !h.readyAt(now).After(now)
}

// readyAt is when h's delay lets the next request start, at or after t.
// Times are rounded to the microsecond: a start less than 1µs early is
// on time.
func (h *host) readyAt(t time.Time) time.Time {
	if h.lim == nil {
		return t
	}
	tok := h.lim.TokensAt(t)
	if tok >= 1 {
		return t
	}
	wait := time.Duration((1 - tok) / float64(h.lim.Limit()) * float64(time.Second))
	if wait <= time.Microsecond {
		return t
	}
	return t.Add(wait.Round(time.Microsecond))
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

func (s *scheduler) unlist(h *host) {
	h.listed = false
	if i := slices.Index(s.pending, h); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+1)
	}
}

// start counts j as running on h and spends h's delay.
func (s *scheduler) start(h *host, j *job, now time.Time) {
	h.active++
	s.active++
	j.prevStart, j.thisStart = h.lastStart, now
	h.lastStart = now
	if j.started.IsZero() {
		j.started = now
	}
	if h.lim != nil {
		s.setRate(h, now) // spend the delay, with a new random factor
	}
}

// delayOf is h's delay between starts: the fixed --delay or the
// robots.txt Crawl-delay, whichever is longer, or AutoThrottle's delay.
func (s *scheduler) delayOf(h *host) time.Duration {
	floor := max(s.opts.Delay, h.crawlDelay)
	if s.opts.AutoThrottle {
		return max(h.throttle, floor)
	}
	return floor
}

// setRate applies h's delay: a token bucket of one token that refills in
// the delay (times a random factor between 0.5 and 1.5 unless
// --no-random-delay, but never below a Crawl-delay), emptied at the last
// start. So, as in Scrapy's
// downloader, the next start is the last start plus the current delay,
// even when the delay has just changed.
func (s *scheduler) setRate(h *host, now time.Time) {
	h.touch()
	d := s.delayOf(h)
	h.delay = d
	if d <= 0 {
		h.lim = nil
		return
	}
	if s.opts.RandomDelay {
		// Never below a Crawl-delay: that is the site's own minimum.
		d = max(time.Duration(float64(d)*(0.5+s.rand())), h.crawlDelay)
	}
	h.lim = rate.NewLimiter(rate.Every(max(d, time.Microsecond)), 1)
	if !h.lastStart.IsZero() {
		h.lim.ReserveN(h.lastStart, 1)
	}
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
// time when only an event can change that (its exchanges at --per-host, or
// robots.txt awaited).
func (s *scheduler) hostWake(h *host, now time.Time) time.Time {
	if h.active >= s.opts.PerHost {
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
	if h.pausedUntil.After(t) {
		t = h.pausedUntil
	}
	return h.readyAt(t)
}

// finish applies a worker's report.
func (s *scheduler) finish(f *finish, now time.Time) {
	if f.kind == finEmitted {
		s.held--
		return
	}
	j := f.j
	h := s.hosts[f.key]
	h.active--
	s.active--
	h.idleSince = now
	h.touch()
	if f.cached {
		// A cache hit does not spend the delay.
		if h.lastStart.Equal(j.thisStart) {
			h.lastStart = j.prevStart
			s.setRate(h, now)
		}
	} else {
		s.feedback(h, f, now)
	}
	switch f.kind {
	case finDone:
		s.held--
	case finRobots:
		s.robotsDone(h, j, f.robots, now)
	case finRedirect:
		s.add(j, now)
	case finRetry:
		if s.interrupted {
			s.answers = append(s.answers, s.cut(j))
			return
		}
		j.retries++
		j.notBefore = now.Add(s.retryWait(h, f))
		s.add(j, now)
	}
}

// feedback updates h from one exchange: AutoThrottle, 429/503 pauses and
// the failure streak that sets the retry backoff.
func (s *scheduler) feedback(h *host, f *finish, now time.Time) {
	overloaded := f.status == http.StatusTooManyRequests || f.status == http.StatusServiceUnavailable
	switch {
	case overloaded || f.failed:
		h.streak++
	case f.status > 0:
		h.streak = 0
	}
	old := h.throttle
	if overloaded {
		pause := s.retry.delay(h.streak-1, s.rand())
		if f.hasRetryAfter {
			pause = min(f.retryAfter, s.opts.RetryAfterMax)
		}
		if until := now.Add(pause); until.After(h.pausedUntil) {
			h.pausedUntil = until
		}
		if s.opts.AutoThrottle {
			h.throttle = s.at.backoff(h.throttle, h.crawlDelay)
		}
	} else if s.opts.AutoThrottle && f.status > 0 && f.latency > 0 {
		h.throttle = s.at.adjust(h.throttle, f.latency, f.status, h.crawlDelay)
	}
	if s.opts.AutoThrottle && f.status > 0 {
		if h.throttle != old {
			s.setRate(h, now)
		}
		if s.debug != nil {
			s.debug(throttleDebug(h.key, h.active, old, h.throttle, f.latency, f.size, f.status))
		}
	}
}

// retryWait is how long a retried job waits: the Retry-After of a 429 or
// 503 when it came with one, else the backoff of the host's failure streak.
func (s *scheduler) retryWait(h *host, f *finish) time.Duration {
	if f.hasRetryAfter {
		return min(f.retryAfter, s.opts.RetryAfterMax)
	}
	return s.retry.delay(max(h.streak-1, 0), s.rand())
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
		rj.notBefore = now.Add(s.retry.delay(max(h.streak-1, 0), s.rand()))
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
		h.throttle = s.at.clamp(h.throttle, h.crawlDelay)
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

// wait puts j in h's waiting list, ordered by notBefore.
func (s *scheduler) wait(h *host, j *job) {
	i, _ := slices.BinarySearchFunc(h.waiting, j, func(a, b *job) int { return a.notBefore.Compare(b.notBefore) })
	h.waiting = slices.Insert(h.waiting, i, j)
	h.touch()
	s.list(h)
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
		j.notBefore = now.Add(s.retry.delay(max(h.streak-1, 0), s.rand()))
		s.add(j, now)
	}
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

// evict forgets idle hosts: nothing queued or running, no pause pending,
// idle for hostIdleTTL. It runs at most once a second.
func (s *scheduler) evict(now time.Time) {
	if now.Sub(s.lastSweep) < time.Second {
		return
	}
	s.lastSweep = now
	for k, h := range s.hosts {
		if h.active == 0 && !h.listed && !h.robotsPending && !now.Before(h.pausedUntil) && now.Sub(h.idleSince) >= hostIdleTTL {
			delete(s.hosts, k)
		}
	}
}

// snapshot summarizes the hosts for the progress line.
func (s *scheduler) snapshot(now time.Time) (hosts, paused int, maxDelay time.Duration) {
	for _, h := range s.hosts {
		hosts++
		if now.Before(h.pausedUntil) {
			paused++
		}
		maxDelay = max(maxDelay, h.delay)
	}
	return hosts, paused, maxDelay
}
