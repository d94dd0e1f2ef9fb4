package monitor

import "time"

// Point is one sample of a crawl, or of the whole frontier: the levels at
// time T and the rates over the interval that ended at T.
type Point struct {
	T        int64   `json:"t"` // Unix milliseconds
	Queued   int64   `json:"queued"`
	InFlight int64   `json:"in_flight"`
	Dead     int64   `json:"dead"`
	Pages    float64 `json:"pages_per_s"`
	Errors   float64 `json:"errors_per_s"`
	DeadRate float64 `json:"dead_per_s"`
	// Items and HTTPErrors come from the tools' published stats (see
	// tools.go): items exported, fetches failed or answered 5xx.
	Items      float64 `json:"items_per_s"`
	HTTPErrors float64 `json:"http_errors_per_s"`
}

// ring is a fixed-capacity circular buffer of points: adding to a full
// ring overwrites the oldest. Its buffer grows with what it holds, up to
// its capacity: a day of samples a second is 7 MB a crawl, and made at
// once for 200 crawls it was 1.4 GB of heap the collector counted as live
// (so it let garbage grow as far) while it held a few MB. The zero value
// holds nothing; use newRing.
type ring struct {
	buf      []Point
	capacity int
	start    int // index of the oldest
	n        int
}

func newRing(capacity int) *ring { return &ring{capacity: max(capacity, 1)} }

func (r *ring) add(p Point) {
	if len(r.buf) < r.capacity {
		// Not full yet, so not wrapped: start is 0.
		if len(r.buf) == cap(r.buf) {
			nb := make([]Point, len(r.buf), min(r.capacity, max(64, 2*cap(r.buf))))
			copy(nb, r.buf)
			r.buf = nb
		}
		r.buf = append(r.buf, p)
		r.n++
		return
	}
	r.buf[r.start] = p
	r.start = (r.start + 1) % len(r.buf)
}

// last returns the newest n points (all when n <= 0), oldest first, in a
// new slice.
func (r *ring) last(n int) []Point {
	if n <= 0 || n > r.n {
		n = r.n
	}
	out := make([]Point, 0, n)
	for i := r.n - n; i < r.n; i++ {
		out = append(out, r.buf[(r.start+i)%max(len(r.buf), 1)])
	}
	return out
}

// series is the history of one crawl at two resolutions: every sample for
// the last fine-capacity samples, and one point per step (the levels at
// its end, the rates averaged over it) for the last coarse-capacity steps.
// Older points are dropped, so its memory is bounded whatever the crawl's
// length.
type series struct {
	fine, coarse *ring
	step         time.Duration

	bucket    int64 // start of the step being gathered, Unix ms; 0: none
	n         int   // points in it
	sum, last Point
}

func newSeries(fine, coarse int, step time.Duration) *series {
	return &series{fine: newRing(fine), coarse: newRing(coarse), step: step}
}

// add appends p (at a time later than the last point's).
func (s *series) add(p Point) {
	s.fine.add(p)
	step := s.step.Milliseconds()
	b := p.T - p.T%step
	if s.n > 0 && b != s.bucket {
		s.flush()
	}
	s.bucket = b
	s.n++
	s.sum.Pages += p.Pages
	s.sum.Errors += p.Errors
	s.sum.DeadRate += p.DeadRate
	s.sum.Items += p.Items
	s.sum.HTTPErrors += p.HTTPErrors
	s.last = p
}

// flush ends the step being gathered: one coarse point stamped with the
// step's start.
func (s *series) flush() {
	n := float64(s.n)
	s.coarse.add(Point{T: s.bucket, Queued: s.last.Queued, InFlight: s.last.InFlight, Dead: s.last.Dead,
		Pages: s.sum.Pages / n, Errors: s.sum.Errors / n, DeadRate: s.sum.DeadRate / n,
		Items: s.sum.Items / n, HTTPErrors: s.sum.HTTPErrors / n})
	s.n, s.sum = 0, Point{}
}

// points returns the newest n points at the fine resolution, or at the
// coarse one (the step being gathered not included).
func (s *series) points(coarse bool, n int) []Point {
	if coarse {
		return s.coarse.last(n)
	}
	return s.fine.last(n)
}
