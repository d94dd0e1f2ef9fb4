package frontier

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A crawl's budget (Scrapy's CLOSESPIDER_* settings) is kept in its
// metadata, so it holds for the crawl across every loop sharing the
// frontier: the limits (MetaMaxPages, …), the counts the loops' cqueue
// push adds as they settle acks (AddCrawlCounts: MetaPages, MetaItems,
// MetaErrors), when the counting began (MetaBudgetStarted) and when an
// item was last counted (MetaIdleSince). cqueue pop reads them before it
// hands out requests (BudgetReached, PagesLeft); the first one to find the
// budget reached records why (MetaBudgetReached), for cqueue info and the
// next run. Like the other metadata keys they are conventions between
// programs: the frontier's own operations do not read them.
const (
	MetaMaxPages  = "max_pages"  // CLOSESPIDER_PAGECOUNT: pages (acked fetches)
	MetaMaxItems  = "max_items"  // CLOSESPIDER_ITEMCOUNT: items extracted
	MetaMaxTime   = "max_time"   // CLOSESPIDER_TIMEOUT: a Go duration, from MetaBudgetStarted
	MetaMaxErrors = "max_errors" // CLOSESPIDER_ERRORCOUNT: failed fetches and failed requests
	MetaMaxIdle   = "max_idle"   // CLOSESPIDER_TIMEOUT_NO_ITEM: a Go duration, from MetaIdleSince

	MetaPages  = "pages"  // pages counted so far
	MetaItems  = "items"  // items counted so far
	MetaErrors = "errors" // errors counted so far

	// MetaBudgetStarted (RFC 3339) is when the counts began: max_time is
	// measured from it.
	MetaBudgetStarted = "budget_started_at"
	// MetaIdleSince (RFC 3339) is when an item was last counted, or a run
	// of the crawl began, if later: max_idle is measured from it.
	MetaIdleSince = "idle_since"
	// MetaBudgetReached is why the crawl stopped on its budget, as
	// BudgetReached says it ("max_pages reached (1000)"); "" while it runs.
	MetaBudgetReached = "budget_reached"
)

// budgetKeys are the limits, in the order they are told.
var budgetKeys = []string{MetaMaxPages, MetaMaxItems, MetaMaxTime, MetaMaxErrors, MetaMaxIdle}

// Budget is a crawl's limits; a zero field is no limit.
type Budget struct {
	MaxPages, MaxItems, MaxErrors int64
	MaxTime, MaxIdle              time.Duration
}

// IsZero reports whether b limits nothing.
func (b Budget) IsZero() bool { return b == Budget{} }

// BudgetOf reads the budget from a crawl's metadata; a value that does not
// parse (set by hand) is no limit.
func BudgetOf(meta map[string]string) Budget {
	n := func(k string) int64 {
		v, err := strconv.ParseInt(meta[k], 10, 64)
		if err != nil || v < 0 {
			return 0
		}
		return v
	}
	d := func(k string) time.Duration {
		v, err := time.ParseDuration(meta[k])
		if err != nil || v < 0 {
			return 0
		}
		return v
	}
	return Budget{MaxPages: n(MetaMaxPages), MaxItems: n(MetaMaxItems), MaxErrors: n(MetaMaxErrors),
		MaxTime: d(MetaMaxTime), MaxIdle: d(MetaMaxIdle)}
}

// Meta is b as metadata: every limit, "" for none, so that setting it with
// replace also clears the limits b does not have.
func (b Budget) Meta() map[string]string {
	n := func(v int64) string {
		if v <= 0 {
			return ""
		}
		return strconv.FormatInt(v, 10)
	}
	d := func(v time.Duration) string {
		if v <= 0 {
			return ""
		}
		return ShortDuration(v)
	}
	return map[string]string{MetaMaxPages: n(b.MaxPages), MetaMaxItems: n(b.MaxItems), MetaMaxErrors: n(b.MaxErrors),
		MetaMaxTime: d(b.MaxTime), MetaMaxIdle: d(b.MaxIdle)}
}

// String lists b's limits: "max_pages 1000, max_time 1h"; "" for none.
func (b Budget) String() string {
	m := b.Meta()
	var parts []string
	for _, k := range budgetKeys {
		if m[k] != "" {
			parts = append(parts, k+" "+m[k])
		}
	}
	return strings.Join(parts, ", ")
}

// ShortDuration writes d as time.Duration does, without the zero units
// at its end: 1h, 1h30m, 90s, 1.5s.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// CrawlCounts are what a crawl's budget counts.
type CrawlCounts struct {
	Pages  int64 `json:"pages"`
	Items  int64 `json:"items"`
	Errors int64 `json:"errors"`
}

// CountsOf reads the counts from a crawl's metadata.
func CountsOf(meta map[string]string) CrawlCounts {
	n := func(k string) int64 {
		v, _ := strconv.ParseInt(meta[k], 10, 64)
		return v
	}
	return CrawlCounts{Pages: n(MetaPages), Items: n(MetaItems), Errors: n(MetaErrors)}
}

// BudgetReached says which limit of its budget the crawl whose metadata
// is meta has reached at now, as "max_pages reached (1000)", or "" when
// none is. A count reaches its limit when it is as large (Scrapy's
// closespider); max_time runs from MetaBudgetStarted and max_idle from
// MetaIdleSince (no limit while they are unset).
func BudgetReached(meta map[string]string, now time.Time) string {
	b, c := BudgetOf(meta), CountsOf(meta)
	since := func(k string) (time.Duration, bool) {
		t, err := time.Parse(time.RFC3339Nano, meta[k])
		if err != nil {
			return 0, false
		}
		return now.Sub(t), true
	}
	switch {
	case b.MaxPages > 0 && c.Pages >= b.MaxPages:
		return fmt.Sprintf("%s reached (%d)", MetaMaxPages, b.MaxPages)
	case b.MaxItems > 0 && c.Items >= b.MaxItems:
		return fmt.Sprintf("%s reached (%d)", MetaMaxItems, b.MaxItems)
	case b.MaxErrors > 0 && c.Errors >= b.MaxErrors:
		return fmt.Sprintf("%s reached (%d)", MetaMaxErrors, b.MaxErrors)
	}
	if d, ok := since(MetaBudgetStarted); ok && b.MaxTime > 0 && d >= b.MaxTime {
		return fmt.Sprintf("%s reached (%s)", MetaMaxTime, ShortDuration(b.MaxTime))
	}
	if d, ok := since(MetaIdleSince); ok && b.MaxIdle > 0 && d >= b.MaxIdle {
		return fmt.Sprintf("%s reached (%s without an item)", MetaMaxIdle, ShortDuration(b.MaxIdle))
	}
	return ""
}

// PagesLeft is how many more requests of the crawl whose metadata is meta
// may be handed out, inFlight of them being in flight: its max_pages less
// the pages counted and those in flight (never below 0); -1 when it has no
// max_pages. Handing out no more than this, loops sharing the crawl
// overshoot its max_pages by no more than what they pop at the same
// moment.
func PagesLeft(meta map[string]string, inFlight int64) int64 {
	b := BudgetOf(meta)
	if b.MaxPages <= 0 {
		return -1
	}
	return max(0, b.MaxPages-CountsOf(meta).Pages-inFlight)
}

// BudgetTime formats t as the budget's times are kept.
func BudgetTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
