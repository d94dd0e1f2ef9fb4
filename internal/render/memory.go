package render

import "time"

// The memory limit (Options.MaxMemory): a browser grows as it renders
// (caches, the heaps of the pages its tabs keep, leaks), and a long crawl
// would hand it the machine. As pages end (at most once a second), the
// memory of the browser's processes together is measured (TreeMemory);
// past the limit the browser is drained: no new page starts in it, the
// pages in it finish (none is cut short), and then it is ended. The next
// page starts a new browser.

// memCheckEvery spaces the measurements: reading /proc for every process
// of the browser costs milliseconds, and pages may end many times a
// second.
const memCheckEvery = time.Second

// pageStarted counts a page going into b, waiting first while a browser
// is being drained. It returns false when the renderer was closed.
func (r *Renderer) pageStarted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.draining != nil && !r.closed {
		r.drained.Wait()
	}
	if r.closed {
		return false
	}
	r.active++
	return true
}

// pageEnded counts a page of b as ended, measures b against the limit and
// ends b once it is over it and no page is left in it.
func (r *Renderer) pageEnded(b *browser) {
	var used int64
	if r.opts.MaxMemory > 0 && b != nil && !b.dead() && r.measureDue(time.Now()) {
		used = TreeMemory(b.pid)
	}
	r.mu.Lock()
	r.active--
	if used > r.opts.MaxMemory && r.opts.MaxMemory > 0 && r.cur == b && r.draining == nil {
		r.draining, r.drainUsed = b, used
	}
	var ended *browser
	if r.draining != nil && r.active == 0 {
		ended, used = r.draining, r.drainUsed
		if r.cur == ended {
			r.cur.close()
			r.cur = nil
			r.restart++
			r.memRestarts++
		} else {
			ended = nil // it died meanwhile, and was replaced
		}
		r.draining = nil
		r.drained.Broadcast()
	}
	r.mu.Unlock()
	if ended != nil && r.opts.OnMemoryRestart != nil {
		r.opts.OnMemoryRestart(used, r.opts.MaxMemory)
	}
}

// measureDue reports whether memCheckEvery has passed since the last
// measurement, counting this one as made when it has.
func (r *Renderer) measureDue(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.measured) < memCheckEvery {
		return false
	}
	r.measured = now
	return true
}

// MemoryRestarts is how many times the browser was ended for
// Options.MaxMemory.
func (r *Renderer) MemoryRestarts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.memRestarts
}
