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

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// APIVersion is the version in the API's paths (/api/v1/). Within a
// version, fields may be added and must be ignored by clients that do not
// know them; nothing is removed or changes meaning.
const APIVersion = 1

// rateWindow is how many samples the rates of /crawls average.
const rateWindow = 5

// writeJSON writes v as the answer. encoding/json escapes <, > and & in
// strings, so no answer can be taken for HTML even by a careless client.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// apiError is the body of every error answer.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var e apiError
	e.Error.Code, e.Error.Message = code, msg
	writeJSON(w, status, e)
}

// Rates are per second, averaged over the last samples.
type Rates struct {
	Pages  float64 `json:"pages_per_s"`
	Errors float64 `json:"errors_per_s"`
	Dead   float64 `json:"dead_per_s"`
	// Items and HTTPErrors are from the tools' published stats: items
	// exported (or extracted), fetches failed or answered 5xx.
	Items      float64 `json:"items_per_s"`
	HTTPErrors float64 `json:"http_errors_per_s"`
	// Shared says the crawl's page and error rates were apportioned from
	// the frontier's, shared with other crawls running at the same time.
	Shared bool `json:"shared,omitempty"`
}

func ratesOf(p Point) Rates {
	return Rates{Pages: round(p.Pages), Errors: round(p.Errors), Dead: round(p.DeadRate), Items: round(p.Items), HTTPErrors: round(p.HTTPErrors)}
}

func round(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

// sampled returns the latest snapshot, or answers 503 when there is none
// yet (the first sample failed).
func (s *Server) sampled(w http.ResponseWriter) (*snapshot, string, bool) {
	snap, err := s.sampler.latest()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if snap == nil {
		if msg == "" {
			msg = "no sample of the frontier yet"
		}
		writeError(w, http.StatusServiceUnavailable, "no_sample", msg)
		return nil, "", false
	}
	return snap, msg, true
}

func (s *Server) apiIndex(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"api": "cqueue serve", "version": APIVersion, "store": s.o.Store,
		"sample_interval_ms": s.o.Interval.Milliseconds(), "history_s": int64(s.o.History.Seconds()),
		"coarse_step_s": int64(coarseStep.Seconds()), "coarse_history_s": int64(s.o.CoarseHistory.Seconds()),
		"control": s.allowControl, "token_for_reads": s.tokenForReads,
		"resources": []string{"GET /api/v1/crawls", "GET /api/v1/hosts?crawlid=ID", "GET /api/v1/series[?crawlid=ID]",
			"GET /api/v1/dead[?crawlid=ID]", "GET /api/v1/consumers", "GET /api/v1/stats", "GET /api/v1/tools[?crawlid=ID]"},
		"actions": []string{"POST /api/v1/stop", "POST /api/v1/expire", "POST /api/v1/pause", "POST /api/v1/resume"},
	})
}

// crawlJSON is one crawl in /crawls.
type crawlJSON struct {
	CrawlID      string            `json:"crawlid"`
	AppID        string            `json:"appid,omitempty"`
	State        string            `json:"state"`
	Status       string            `json:"status"`
	Paused       bool              `json:"paused"`
	Round        int               `json:"round,omitempty"`
	StartedAt    string            `json:"started_at,omitempty"`
	ElapsedS     *float64          `json:"elapsed_s,omitempty"`
	Totals       *totalsJSON       `json:"totals,omitempty"`
	Expires      int64             `json:"expires,omitempty"`
	Queued       int64             `json:"queued"`
	InFlight     int64             `json:"in_flight"`
	Dead         int64             `json:"dead"`
	HighPriority int               `json:"high_priority"`
	LowPriority  int               `json:"low_priority"`
	Hosts        int               `json:"hosts"`
	Tracked      bool              `json:"tracked"`
	Tools        int               `json:"tools"`
	Rates        Rates             `json:"rates"`
	Meta         map[string]string `json:"meta,omitempty"`
}

func (s *Server) apiCrawls(w http.ResponseWriter, r *http.Request) {
	snap, sampleErr, ok := s.sampled(w)
	if !ok {
		return
	}
	q := r.URL.Query()
	out := []crawlJSON{}
	for _, c := range snap.Crawls {
		if q.Has("crawlid") && c.CrawlID != q.Get("crawlid") || q.Get("appid") != "" && c.AppID != q.Get("appid") {
			continue
		}
		meta := snap.Meta[c.CrawlID]
		shown := meta
		if !s.authorized(r) {
			shown = publicMeta(meta)
		}
		cj := crawlJSON{CrawlID: c.CrawlID, AppID: c.AppID, State: c.State, Paused: meta[frontier.MetaPaused] == "1",
			Expires: c.Expires, Queued: c.Pending, InFlight: c.InFlight, Dead: c.Dead,
			HighPriority: c.HighPriority, LowPriority: c.LowPriority, Hosts: len(c.Hosts), Meta: shown}
		for _, t := range snap.Tools {
			if t.CrawlID == c.CrawlID || t.CrawlID == "" {
				cj.Tools++
			}
		}
		totals, published, working := totalsOf(snap.Tools, c.CrawlID)
		if !published {
			totals, published = lastRunTotals(meta)
		}
		if published {
			cj.Totals = &totals
		}
		cj.Status = statusOf(c, meta, working)
		if round, started, elapsed, ok := elapsedOf(meta, snap.At); ok {
			cj.Round, cj.StartedAt, cj.ElapsedS = round, started, &elapsed
		}
		if p, ok := s.sampler.recent(c.CrawlID, rateWindow); ok {
			cj.Tracked, cj.Rates = true, ratesOf(p)
			_, shared, _ := s.sampler.seriesOf(c.CrawlID, false, false, 1)
			cj.Rates.Shared = shared
		}
		out = append(out, cj)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"as_of": snap.At.UTC().Format(time.RFC3339Nano), "error": omitEmpty(sampleErr),
		"counts": snap.Counts, "rates": ratesOf(s.sampler.recentAll(rateWindow)), "rate_window_s": rateWindow * s.o.Interval.Seconds(),
		"crawls": out,
	})
}

// omitEmpty makes "" a JSON null.
func omitEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// hostJSON is one host of a crawl in /hosts.
type hostJSON struct {
	Host     string   `json:"host"`
	Queued   int64    `json:"queued"`
	InFlight int64    `json:"in_flight"`
	Dead     int64    `json:"dead"`
	Idle     *float64 `json:"unchanged_s,omitempty"`
}

// hostSorts are the orders /hosts takes, most first: dead ("the most
// failing"), stalled (the hosts with work left whose counts have not
// changed for the longest: the slowest), queued, in_flight.
var hostSorts = []string{"dead", "stalled", "queued", "in_flight"}

func (s *Server) apiHosts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !q.Has("crawlid") {
		writeError(w, http.StatusBadRequest, "bad_request", "crawlid is required")
		return
	}
	sortBy := cmp.Or(q.Get("sort"), "dead")
	if !slices.Contains(hostSorts, sortBy) {
		writeError(w, http.StatusBadRequest, "bad_request", "sort: want one of "+strings.Join(hostSorts, ", "))
		return
	}
	limit, ok := limitParam(w, q.Get("limit"), 20)
	if !ok {
		return
	}
	snap, _, ok := s.sampled(w)
	if !ok {
		return
	}
	c, ok := findCrawl(snap, q.Get("crawlid"))
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "no such crawl")
		return
	}
	since := s.sampler.hostsSince(c.CrawlID)
	hosts := make([]hostJSON, 0, len(c.Hosts))
	for _, h := range c.Hosts {
		hj := hostJSON{Host: h.Host, Queued: h.Pending, InFlight: h.InFlight, Dead: h.Dead}
		if t, ok := since[h.Host]; ok {
			idle := round(snap.At.Sub(t).Seconds())
			hj.Idle = &idle
		}
		if sortBy == "stalled" && (h.Pending+h.InFlight == 0 || hj.Idle == nil) {
			continue
		}
		hosts = append(hosts, hj)
	}
	key := func(h hostJSON) float64 {
		switch sortBy {
		case "dead":
			return float64(h.Dead)
		case "queued":
			return float64(h.Queued)
		case "in_flight":
			return float64(h.InFlight)
		}
		return *h.Idle
	}
	slices.SortStableFunc(hosts, func(a, b hostJSON) int {
		return cmp.Or(cmp.Compare(key(b), key(a)), strings.Compare(a.Host, b.Host))
	})
	if sortBy == "dead" {
		hosts = slices.DeleteFunc(hosts, func(h hostJSON) bool { return h.Dead == 0 })
	}
	total := len(hosts) // the hosts the sort considers, before limit
	hosts = hosts[:min(limit, len(hosts))]
	writeJSON(w, http.StatusOK, map[string]any{"as_of": snap.At.UTC().Format(time.RFC3339Nano),
		"crawlid": c.CrawlID, "sort": sortBy, "total": total, "hosts": hosts})
}

func findCrawl(snap *snapshot, id string) (frontier.CrawlInfo, bool) {
	for _, c := range snap.Crawls {
		if c.CrawlID == id {
			return c, true
		}
	}
	return frontier.CrawlInfo{}, false
}

// limitParam parses a limit (1…1000, def when empty).
func limitParam(w http.ResponseWriter, v string, def int) (int, bool) {
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		writeError(w, http.StatusBadRequest, "bad_request", "limit: want a number from 1 to 1000")
		return 0, false
	}
	return n, true
}

func (s *Server) apiSeries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	res := cmp.Or(q.Get("res"), "fine")
	if res != "fine" && res != "coarse" {
		writeError(w, http.StatusBadRequest, "bad_request", "res: want fine (every sample) or coarse (one point a minute)")
		return
	}
	last := 0
	if v := q.Get("last"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeError(w, http.StatusBadRequest, "bad_request", "last: want a positive number of points")
			return
		}
		last = n
	}
	all := !q.Has("crawlid")
	pts, shared, ok := s.sampler.seriesOf(q.Get("crawlid"), all, res == "coarse", last)
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "no history of this crawl (unknown, or not tracked: see \"tracked\" in /api/v1/crawls)")
		return
	}
	step := s.o.Interval
	if res == "coarse" {
		step = coarseStep
	}
	out := map[string]any{"res": res, "step_ms": step.Milliseconds(), "points": pts}
	if all {
		out["scope"] = "frontier"
	} else {
		out["scope"], out["crawlid"], out["shared"] = "crawl", q.Get("crawlid"), shared
	}
	writeJSON(w, http.StatusOK, out)
}

// deadJSON is a dead letter in /dead, with its crawl.
type deadJSON struct {
	CrawlID string `json:"crawlid"`
	DeadLetter
}

func (s *Server) apiDead(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, ok := limitParam(w, q.Get("limit"), 100)
	if !ok {
		return
	}
	snap, _, ok := s.sampled(w)
	if !ok {
		return
	}
	lists, at, err := s.dead.get(r.Context(), snap.Counts.Dead, s.now())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", err.Error())
		return
	}
	ids := slices.Sorted(maps.Keys(lists))
	if q.Has("crawlid") {
		ids = []string{q.Get("crawlid")}
	}
	var total int64
	byReason := map[string]int64{}
	letters := []deadJSON{}
	for _, id := range ids {
		l := lists[id]
		if l == nil {
			continue
		}
		total += l.Total
		for k, n := range l.ByReason {
			byReason[k] += n
		}
		for _, d := range l.Letters {
			if len(letters) < limit {
				letters = append(letters, deadJSON{id, d})
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"as_of": at.UTC().Format(time.RFC3339Nano),
		"total": total, "by_reason": byReason, "letters": letters})
}

// consumerJSON is one consumer in /consumers.
type consumerJSON struct {
	ID      string  `json:"id"`
	Host    string  `json:"host"`
	PID     int     `json:"pid"`
	Beat    string  `json:"beat"`
	BeatAge float64 `json:"beat_age_s"`
	Held    int     `json:"held"`
	Alive   bool    `json:"alive"`
}

func (s *Server) apiConsumers(w http.ResponseWriter, r *http.Request) {
	snap, _, ok := s.sampled(w)
	if !ok {
		return
	}
	out := []consumerJSON{}
	for _, c := range snap.Consumers {
		age := snap.At.Sub(c.Beat)
		out = append(out, consumerJSON{ID: c.ID, Host: c.Host, PID: c.PID, Beat: c.Beat.UTC().Format(time.RFC3339Nano),
			BeatAge: round(max(0, age.Seconds())), Held: c.Held, Alive: age <= s.o.ConsumerTimeout})
	}
	writeJSON(w, http.StatusOK, map[string]any{"as_of": snap.At.UTC().Format(time.RFC3339Nano),
		"consumer_timeout_s": s.o.ConsumerTimeout.Seconds(), "consumers": out})
}

func (s *Server) apiStats(w http.ResponseWriter, r *http.Request) {
	snap, _, ok := s.sampled(w)
	if !ok {
		return
	}
	counters := snap.Stats
	if counters == nil {
		counters = map[string]int64{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"as_of": snap.At.UTC().Format(time.RFC3339Nano),
		"queued": snap.Counts.Queued, "in_flight": snap.Counts.InFlight, "dead": snap.Counts.Dead, "counters": counters})
}

// publicMeta is the part of a crawl's metadata shown to a read without the
// token: its round, and whether it is paused; not its run lock (host, pid,
// boot id), nor the paths of its rules, seeds and export.
func publicMeta(meta map[string]string) map[string]string {
	var out map[string]string
	for k, v := range meta {
		if k == "round" || k == "round_state" || k == frontier.MetaPaused || k == frontier.MetaPausedAt || k == "started_at" || strings.HasPrefix(k, "round_started") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
