package cfetch

import (
	"testing"
	"time"
)

// TestSchedulerDocumentDone: a page being rendered whose document has
// been read gives its --per-host slot back while the browser goes on with
// it; its end then counts nothing twice, and a report for an earlier
// exchange of it changes nothing.
func TestSchedulerDocumentDone(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Concurrency, o.PerHost = 4, 1
	m := newSim(t, &o)
	m.add(urls("a.test", 3)...)
	s, now := m.s, m.now

	page := s.next(now)
	if page == nil || s.next(now) != nil {
		t.Fatal("want one job of a.test started, at --per-host 1")
	}
	s.documentDone(page, page.thisStart.Add(-time.Second), now) // another exchange's
	if s.next(now) != nil {
		t.Fatal("a report for another exchange freed the slot")
	}
	s.documentDone(page, page.thisStart, now)
	plain := s.next(now)
	if plain == nil {
		t.Fatal("the page's document was read, and its host's slot is still taken")
	}
	s.documentDone(page, page.thisStart, now) // twice: nothing more
	if s.next(now) != nil || s.active != 1 || s.hosts["a.test:80"].active != 1 {
		t.Fatalf("after a second report: active %d, host %d; want 1 and 1", s.active, s.hosts["a.test:80"].active)
	}
	s.finish(&finish{kind: finDone, j: page, key: page.key, status: 200}, now)
	if s.active != 1 || s.hosts["a.test:80"].active != 1 {
		t.Fatalf("the page's end counted again: active %d, host %d; want 1 and 1", s.active, s.hosts["a.test:80"].active)
	}
	s.finish(&finish{kind: finDone, j: plain, key: plain.key, status: 200}, now)
	if s.active != 0 {
		t.Fatalf("active %d after both ended", s.active)
	}
	if last := s.next(now); last == nil || last.freed {
		t.Fatalf("the third job: %+v", last)
	}
}
