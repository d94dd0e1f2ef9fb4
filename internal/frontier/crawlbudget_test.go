package frontier

import (
	"maps"
	"testing"
	"time"
)

func TestBudgetReached(t *testing.T) {
	start := BudgetTime(t0)
	for _, tc := range []struct {
		name string
		meta map[string]string
		now  time.Time
		want string
	}{
		{"no budget", map[string]string{MetaPages: "5000"}, t0, ""},
		{"pages below", map[string]string{MetaMaxPages: "10", MetaPages: "9"}, t0, ""},
		{"pages at", map[string]string{MetaMaxPages: "10", MetaPages: "10"}, t0, "max_pages reached (10)"},
		{"pages over", map[string]string{MetaMaxPages: "10", MetaPages: "12"}, t0, "max_pages reached (10)"},
		{"items", map[string]string{MetaMaxItems: "3", MetaItems: "3"}, t0, "max_items reached (3)"},
		{"errors", map[string]string{MetaMaxErrors: "1", MetaErrors: "1"}, t0, "max_errors reached (1)"},
		{"time below", map[string]string{MetaMaxTime: "1h", MetaBudgetStarted: start}, t0.Add(59 * time.Minute), ""},
		{"time at", map[string]string{MetaMaxTime: "1h", MetaBudgetStarted: start}, t0.Add(time.Hour), "max_time reached (1h)"},
		{"time unstarted", map[string]string{MetaMaxTime: "1h"}, t0.Add(5 * time.Hour), ""},
		{"idle", map[string]string{MetaMaxIdle: "90s", MetaIdleSince: start}, t0.Add(90 * time.Second), "max_idle reached (1m30s without an item)"},
		{"idle below", map[string]string{MetaMaxIdle: "90s", MetaIdleSince: start}, t0.Add(89 * time.Second), ""},
		{"bad values are no limit", map[string]string{MetaMaxPages: "ten", MetaPages: "99", MetaMaxTime: "-1h", MetaBudgetStarted: start}, t0.Add(time.Hour), ""},
		{"counts before times", map[string]string{MetaMaxTime: "1s", MetaBudgetStarted: start, MetaMaxItems: "1", MetaItems: "1"}, t0.Add(time.Hour), "max_items reached (1)"},
	} {
		if got := BudgetReached(tc.meta, tc.now); got != tc.want {
			t.Errorf("%s: BudgetReached(%v) = %q, want %q", tc.name, tc.meta, got, tc.want)
		}
	}
}

func TestBudgetMeta(t *testing.T) {
	b := Budget{MaxPages: 1000, MaxTime: 90 * time.Minute, MaxIdle: 2 * time.Hour}
	m := b.Meta()
	want := map[string]string{MetaMaxPages: "1000", MetaMaxItems: "", MetaMaxErrors: "", MetaMaxTime: "1h30m", MetaMaxIdle: "2h"}
	if !maps.Equal(m, want) {
		t.Errorf("Meta() = %v, want %v", m, want)
	}
	if got := BudgetOf(m); got != b {
		t.Errorf("BudgetOf(Meta()) = %+v, want %+v", got, b)
	}
	if s := b.String(); s != "max_pages 1000, max_time 1h30m, max_idle 2h" {
		t.Errorf("String() = %q", s)
	}
	if !(Budget{}).IsZero() || b.IsZero() {
		t.Error("IsZero")
	}
}

func TestPagesLeft(t *testing.T) {
	for _, tc := range []struct {
		meta     map[string]string
		inFlight int64
		want     int64
	}{
		{map[string]string{}, 5, -1},
		{map[string]string{MetaMaxPages: "100"}, 0, 100},
		{map[string]string{MetaMaxPages: "100", MetaPages: "60"}, 30, 10},
		{map[string]string{MetaMaxPages: "100", MetaPages: "60"}, 50, 0},
	} {
		if got := PagesLeft(tc.meta, tc.inFlight); got != tc.want {
			t.Errorf("PagesLeft(%v, %d) = %d, want %d", tc.meta, tc.inFlight, got, tc.want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", 90 * time.Minute: "1h30m", 90 * time.Second: "1m30s",
		time.Minute: "1m", 1500 * time.Millisecond: "1.5s", 2*time.Hour + 3*time.Second: "2h0m3s"} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
