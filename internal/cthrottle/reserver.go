package cthrottle

import (
	"context"
	"fmt"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/throttle"
)

// How long what a robots.txt said is used, and how many origins are
// remembered (past that, all are forgotten and fetched again as needed).
const (
	robotsTTL     = 24 * time.Hour
	robotsMaxSeen = 100_000
)

// afterAll is the time of records released by an interrupt: after every
// record held, which the interrupt writes at once too.
var afterAll = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// purgeEvery is how often the reserver purges the store of idle keys.
const purgeEvery = time.Minute

// robotsPolicy is what an origin's robots.txt asked, and when it was read.
type robotsPolicy struct {
	delay time.Duration
	at    time.Time
}

// reserve takes the reader's records in batches, reserves the slots of
// the requests and hands every record to the releaser. It returns when
// the input is over and nothing waits for a robots.txt, or at once on a
// failure; an interrupt makes it hand everything on unthrottled.
func (p *pipeline) reserve(ctx context.Context) {
	defer close(p.out)
	bg := context.WithoutCancel(ctx) // a reservation is never cut in half
	parked := map[string][]*item{}   // by origin, waiting for its robots.txt
	answers := make(chan robotsAnswer)
	quit := make(chan struct{})
	defer close(quit)
	fetchSlots := make(chan struct{}, robotsParallel)
	interrupted := false
	ctxDone := ctx.Done()
	inOpen := true
	in := p.in // nil once closed: a closed channel would be ready for ever
	for (inOpen || len(parked) > 0) && !p.failed.Load() {
		var batch []*item
		select {
		case it, ok := <-in:
			if !ok {
				inOpen, in = false, nil
				break
			}
			batch = append(batch, it)
		more:
			for len(batch) < p.o.Batch {
				select {
				case it, ok := <-in:
					if !ok {
						inOpen, in = false, nil
						break more
					}
					batch = append(batch, it)
				default:
					break more
				}
			}
		case a := <-answers:
			p.robotsSeen[a.origin] = robotsPolicy{delay: a.delay, at: time.Now()}
			p.debugf("robots.txt of %s: %s", a.origin, a.note)
			batch = parked[a.origin]
			delete(parked, a.origin)
			p.parked.Add(-int64(len(batch)))
		case <-ctxDone:
			ctxDone = nil
			interrupted = true
			for origin, its := range parked {
				batch = append(batch, its...)
				delete(parked, origin)
			}
			p.parked.Store(0)
			if !p.tool.DrainOnInterrupt {
				// The input is not a pipe whose writer stops too: stop
				// waiting for it (a read may block for ever).
				inOpen, in = false, nil
				p.stopReading()
				batch = append(batch, p.drainIn()...)
			}
		}
		var toReserve []*item
		for _, it := range batch {
			switch {
			case it.class == classPass:
				p.tool.Stats.Count("passed", "not_request", 1)
				it.ready = true
			case it.class == classUnkeyed && p.o.RequireKey:
				p.reject(it, "unkeyed", "no key")
			case it.class == classUnkeyed:
				p.tool.Stats.Count("passed", "unkeyed", 1)
				it.ready = true
			case interrupted:
				// Written at once, after the records held (so that a key's
				// records keep their order), in the order they came.
				it.released, it.at, it.ready = true, afterAll, true
			case p.robots != nil && !p.robotsKnown(it.origin) || len(parked[it.origin]) > 0:
				if len(parked[it.origin]) == 0 {
					go p.fetchRobots(it.origin, answers, quit, fetchSlots)
				}
				parked[it.origin] = append(parked[it.origin], it)
				p.parked.Add(1)
			default:
				toReserve = append(toReserve, it)
			}
		}
		p.reserveAll(bg, toReserve)
		// In the order they came: what may go at once goes in input order.
		for _, it := range batch {
			if it.ready {
				p.out <- it
			}
		}
		p.purge(bg)
	}
	if p.failed.Load() {
		for _, its := range parked {
			for _, it := range its {
				p.done(it, "not_passed")
			}
		}
		for _, it := range p.drainIn() {
			p.done(it, "not_passed")
		}
	}
}

// drainIn returns what the reader has handed over already, without
// waiting for more.
func (p *pipeline) drainIn() []*item {
	var its []*item
	for {
		select {
		case it, ok := <-p.in:
			if !ok {
				return its
			}
			its = append(its, it)
		default:
			return its
		}
	}
}

// robotsKnown reports whether origin's robots.txt has been read lately.
func (p *pipeline) robotsKnown(origin string) bool {
	pol, ok := p.robotsSeen[origin]
	return ok && time.Since(pol.at) < robotsTTL
}

// fetchRobots reads origin's robots.txt and sends the answer.
func (p *pipeline) fetchRobots(origin string, answers chan<- robotsAnswer, quit <-chan struct{}, slots chan struct{}) {
	select {
	case slots <- struct{}{}:
	case <-quit:
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	a := p.robots.fetch(ctx, origin)
	cancel()
	<-slots
	select {
	case answers <- a:
	case <-quit:
	}
}

// rateOf is the rate of a request: its key's, or its host's robots.txt
// delay when that is slower (then one at a time: a Crawl-delay is the
// time between two requests).
func (p *pipeline) rateOf(it *item) throttle.Rate {
	r := p.table.For(it.key)
	if p.robots != nil {
		if pol := p.robotsSeen[it.origin]; pol.delay > r.Interval {
			r = throttle.Every(pol.delay, 1)
		}
	}
	return r
}

// reserveAll reserves the slots of items, keeping each key's order (see
// reserveRuns), and makes each granted record ready at its slot.
func (p *pipeline) reserveAll(ctx context.Context, items []*item) {
	if len(items) == 0 {
		return
	}
	if len(p.robotsSeen) > robotsMaxSeen {
		clear(p.robotsSeen)
	}
	for _, it := range items {
		it.rate, it.maxWait = p.rateOf(it), p.o.maxWait(it.leased)
	}
	unanswered, err := reserveRuns(ctx, p.store, items, func(it *item, w time.Duration, arrived, slot time.Time) {
		if p.failed.Load() {
			p.done(it, "not_passed")
			return
		}
		it.wait, it.ready, it.slot = w, true, slot
		if w > 0 {
			it.at = arrived.Add(w)
		}
		// Never before an earlier record of the key: answers that
		// took longer to arrive must not reorder it.
		if last := p.lastAt[it.key]; it.at.Before(last) {
			it.at = last
		}
		p.lastAt[it.key] = it.at
		if w > 0 {
			p.tool.Stats.Count("passed", "held", 1)
		} else {
			p.tool.Stats.Count("passed", "at_once", 1)
		}
		if p.o.Debug {
			p.debugf("%s: %s: slot %s, wait %v", it.pos, it.key, slotString(slot), w)
		}
	}, func(it *item, wait time.Duration) {
		if p.failed.Load() {
			p.done(it, "not_passed")
			return
		}
		p.overflow(it, wait, it.maxWait)
	}, p.failed.Load)
	if err != nil {
		p.fail(fmt.Errorf("%v (records from %s on are not passed)", trimPrefix(err), unanswered[0].pos))
	}
	for _, it := range unanswered {
		p.done(it, "not_passed")
	}
}

// overflow handles a record whose slot is further than --max-wait.
func (p *pipeline) overflow(it *item, wait, maxWait time.Duration) {
	if p.o.OnOverflow == overflowFail {
		p.fail(fmt.Errorf("%s: %s: the next slot is %v away, past --max-wait %v (--on-overflow fail; records from here on are not passed)",
			it.pos, it.key, wait.Round(time.Millisecond), maxWait))
		p.done(it, "throttled")
		return
	}
	p.debugf("%s: %s: throttled: the next slot is %v away, past --max-wait %v", it.pos, it.key, wait.Round(time.Millisecond), maxWait)
	p.reject(it, "throttled", "")
}

// reject drops a record for reason and writes it to --rejects.
func (p *pipeline) reject(it *item, reason, why string) {
	if why != "" {
		p.debugf("%s: rejected: %s", it.pos, why)
	}
	if p.rejects != nil {
		p.rejectsMu.Lock()
		err := p.rejects.WriteLine(withField(it.raw, "reason", reason))
		p.rejectsMu.Unlock()
		if err != nil && !p.failed.Load() {
			p.fail(fmt.Errorf("write rejects: %v", err))
		}
	}
	p.done(it, reason)
}

// fail reports err, makes the exit status 1 and stops the run: reading
// stops, what was reserved is still written at its slot.
func (p *pipeline) fail(err error) {
	if !p.failed.CompareAndSwap(false, true) {
		return
	}
	p.tool.Fail(err)
	p.stopReading()
}

// purge forgets idle keys every purgeEvery, so the state stays small.
func (p *pipeline) purge(ctx context.Context) {
	now := time.Now()
	if now.Sub(p.lastPurge) < purgeEvery {
		return
	}
	p.lastPurge = now
	n, err := p.store.Purge(ctx, now.Add(-throttle.DefaultKeep))
	if err != nil && !p.purgeTold {
		p.purgeTold = true
		p.tool.Printf("warning: %v (the state is purged again in %v)", trimPrefix(err), purgeEvery)
	}
	if n > 0 {
		p.tool.Stats.Count("keys", "purged", int64(n))
	}
	for key, at := range p.lastAt {
		if at.Before(now) {
			delete(p.lastAt, key)
		}
	}
}

// withField returns the JSON object raw with "key":value added (replacing
// a member of that name).
func withField(raw []byte, key, value string) []byte {
	fields, ok := record.ScanObject(raw)
	if !ok {
		return raw
	}
	b := []byte{'{'}
	for _, f := range fields {
		if f.Key == key {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = record.AppendString(b, f.Key)
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = record.AppendString(b, key)
	b = append(b, ':')
	b = record.AppendString(b, value)
	return append(b, '}')
}
