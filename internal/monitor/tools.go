package monitor

import (
	"cmp"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/statspub"
)

// The tools attached to a crawl publish their stats to the frontier's
// store (package toolstats: cli's --stats-to, and cqueue crawl for its
// loop), and each sample reads the snapshots not expired. From two
// snapshots of one process the sampler takes its rates — items/s (the
// items cexport exported, or without a cexport the items cextract
// emitted) and HTTP errors/s (cfetch's failed fetches, by their error
// code, and its answers of status 500 and above) — held until its next
// snapshot; a crawl's are the sums over the processes that publish for
// it, plus its share (as for pages/s) of those that name no crawl.

// figures are what the monitor counts in one snapshot's stats.
type figures struct {
	items, httpErrors int64
	exporter          bool // cexport: its items are the ones exported
	extractor         bool // cextract
}

// readStats parses a snapshot's stats; a document it cannot read counts
// nothing.
func readStats(s statspub.Snapshot) cli.StatsJSON {
	var st cli.StatsJSON
	json.Unmarshal(s.Stats, &st)
	return st
}

func figuresOf(s statspub.Snapshot) figures {
	st := readStats(s)
	var f figures
	switch s.Tool {
	case "cexport":
		f.items, f.exporter = st.Out, true
	case "cextract":
		f.items, f.extractor = st.Counts["items"]["emitted"], true
	case "cfetch":
		for _, n := range httpErrors(st) {
			f.httpErrors += n
		}
	}
	return f
}

// FetchedPages is the pages cfetch's stats st account for: the
// responses it wrote (not the requests it read ahead), less the requests
// an interrupt handed back unfetched and the records of other kinds it
// passed through (a crawl's pause or expired record). cqueue crawl's
// account and cqueue serve count pages so.
func FetchedPages(st cli.StatsJSON) int64 {
	n := st.Out - st.Counts["interrupted"]["released"]
	for _, p := range st.Counts["passed"] {
		n -= p
	}
	return n
}

// httpErrors are cfetch's fetches that failed, by reason: its error codes
// (timeout, dns, robots, …) and "status_NNN" for the answers of
// status 500 and above (after its retries).
func httpErrors(st cli.StatsJSON) map[string]int64 {
	out := maps.Clone(st.Errors)
	if out == nil {
		out = map[string]int64{}
	}
	for code, n := range st.Counts["status"] {
		if c, err := strconv.Atoi(code); err == nil && c >= 500 && n > 0 {
			out["status_"+code] += n
		}
	}
	return out
}

// toolTrack is what the sampler keeps of one tool process between
// samples: its last snapshot's figures and the rates since the one
// before.
type toolTrack struct {
	at                time.Time
	fig               figures
	items, httpErrors float64 // per second
	rated             bool    // two snapshots were seen
}

// toolRates are the items/s and HTTP errors/s of a group of tools.
type toolRates struct {
	exported, extracted, httpErrors float64
	exporters                       int
}

func (r toolRates) items() float64 {
	if r.exporters > 0 {
		return r.exported
	}
	return r.extracted
}

// trackTools updates each tool's rates from its new snapshot and returns
// the rates summed by the crawl the tools publish for ("": none named).
// Called with s.mu held.
func (s *sampler) trackTools(snaps []statspub.Snapshot) map[string]*toolRates {
	seen := make(map[string]bool, len(snaps))
	by := map[string]*toolRates{}
	for _, snap := range snaps {
		id := snap.ID()
		seen[id] = true
		fig := figuresOf(snap)
		tr := s.tools[id]
		switch {
		case tr == nil:
			tr = &toolTrack{at: snap.At, fig: fig}
			s.tools[id] = tr
		case snap.At.After(tr.at):
			dt := snap.At.Sub(tr.at).Seconds()
			tr.items = max(0, float64(fig.items-tr.fig.items)) / dt
			tr.httpErrors = max(0, float64(fig.httpErrors-tr.fig.httpErrors)) / dt
			tr.at, tr.fig, tr.rated = snap.At, fig, true
		}
		if snap.Exited {
			tr.items, tr.httpErrors = 0, 0
		}
		r := by[snap.CrawlID]
		if r == nil {
			r = &toolRates{}
			by[snap.CrawlID] = r
		}
		switch {
		case fig.exporter:
			r.exported += tr.items
			r.exporters++
		case fig.extractor:
			r.extracted += tr.items
		}
		r.httpErrors += tr.httpErrors
	}
	for id := range s.tools {
		if !seen[id] {
			delete(s.tools, id)
		}
	}
	return by
}

// toolRate returns a tool process's rates, and whether it has any yet.
func (s *sampler) toolRate(id string) (items, httpErrors float64, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	tr := s.tools[id]
	if tr == nil || !tr.rated {
		return 0, 0, false
	}
	return tr.items, tr.httpErrors, true
}

// toolJSON is one tool process in /tools.
type toolJSON struct {
	ID      string  `json:"id"`
	Tool    string  `json:"tool"`
	CrawlID string  `json:"crawlid"`
	Host    string  `json:"host"`
	PID     int     `json:"pid"`
	At      string  `json:"at"`
	Age     float64 `json:"age_s"`
	EveryS  float64 `json:"every_s"`
	// State is running, late (a snapshot is overdue: it vanishes at three
	// periods) or exited.
	State string `json:"state"`
	Exit  *int   `json:"exit,omitempty"`
	In    int64  `json:"in"`
	Out   int64  `json:"out"`
	// Rates are absent until two snapshots were seen.
	Rates *toolRatesJSON  `json:"rates,omitempty"`
	Stats json.RawMessage `json:"stats"`
}

type toolRatesJSON struct {
	Items      float64 `json:"items_per_s"`
	HTTPErrors float64 `json:"http_errors_per_s"`
}

// dropJSON is a count of records a tool dropped for a reason.
type dropJSON struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
	Count  int64  `json:"count"`
}

// notRejected are drop reasons that say nothing was wrong: records an
// interrupt left to the next run.
var notRejected = map[string]bool{"interrupted": true, "not_fetched": true}

func (s *Server) apiTools(w http.ResponseWriter, r *http.Request) {
	snap, _, ok := s.sampled(w)
	if !ok {
		return
	}
	q := r.URL.Query()
	out := []toolJSON{}
	var rates toolRates
	httpErrs, refused := map[string]int64{}, map[string]int64{}
	drops := map[[2]string]int64{}
	for _, t := range snap.Tools {
		if q.Has("crawlid") && t.CrawlID != q.Get("crawlid") && t.CrawlID != "" {
			continue
		}
		st := readStats(t)
		every := time.Duration(t.EveryMS) * time.Millisecond
		age := snap.At.Sub(t.At)
		tj := toolJSON{ID: t.ID(), Tool: t.Tool, CrawlID: t.CrawlID, Host: t.Host, PID: t.PID,
			At: t.At.UTC().Format(time.RFC3339Nano), Age: round(max(0, age.Seconds())), EveryS: every.Seconds(),
			State: "running", Exit: t.Exit, In: st.In, Out: st.Out, Stats: t.Stats}
		switch {
		case t.Exited:
			tj.State = "exited"
		case age > 2*every:
			tj.State = "late"
		}
		fig := figuresOf(t)
		if items, errs, ok := s.sampler.toolRate(t.ID()); ok {
			tj.Rates = &toolRatesJSON{Items: round(items), HTTPErrors: round(errs)}
			switch {
			case fig.exporter:
				rates.exported += items
				rates.exporters++
			case fig.extractor:
				rates.extracted += items
			}
			rates.httpErrors += errs
		}
		if t.Tool == "cfetch" {
			for k, n := range httpErrors(st) {
				httpErrs[k] += n
			}
		}
		if t.Tool == "cqueue push" {
			for k, n := range st.Counts["refused"] {
				refused[k] += n
			}
		}
		for k, n := range st.Dropped {
			if n > 0 && !notRejected[k] {
				drops[[2]string{t.Tool, k}] += n
			}
		}
		out = append(out, tj)
	}
	dropped := []dropJSON{}
	for _, k := range slices.SortedFunc(maps.Keys(drops), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	}) {
		dropped = append(dropped, dropJSON{Tool: k[0], Reason: k[1], Count: drops[k]})
	}
	writeJSON(w, http.StatusOK, map[string]any{"as_of": snap.At.UTC().Format(time.RFC3339Nano),
		"items_per_s": round(rates.items()), "http_errors_per_s": round(rates.httpErrors),
		"http_errors": httpErrs, "dropped": dropped, "refused": refused, "tools": out})
}
