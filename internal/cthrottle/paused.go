package cthrottle

import (
	"encoding/json"
	"time"
)

// kindPause is the record cqueue pop --follow writes when a crawl it
// serves is paused, {"kind":"pause","crawlid":ID}; kindRelease the record
// cqueue push applies to give a leased request back to the frontier
// unfetched.
const (
	kindPause   = "pause"
	kindRelease = "release"
)

// givesBack, for a pause record, gives back the leased requests of its
// crawl that are held waiting for their slots: each is written at once as
// a release record (its lease, crawlid and url), which cfetch and the
// tools after it pass on and cqueue push applies, so the crawl's held
// requests go back to the frontier, unfetched, instead of being fetched
// for as long as their slots take. The crawl's requests come again when
// it is resumed. Records already due go as they are.
func (p *pipeline) givesBack(w *waiting, pause *item) {
	if pause.pause == "" {
		return
	}
	now := time.Now()
	var back []*item
	for _, it := range w.h {
		if it.crawl == pause.pause && it.lease != "" && it.class == classKeyed && !it.released && it.at.After(now) {
			back = append(back, it)
		}
	}
	for _, it := range back {
		w.remove(it)
		b, err := json.Marshal(struct {
			Kind    string `json:"kind"`
			Lease   string `json:"lease"`
			CrawlID string `json:"crawlid"`
			URL     string `json:"url"`
		}{kindRelease, it.lease, it.crawl, heldURL(it)})
		if err != nil {
			continue
		}
		it.raw, it.at, it.class = b, time.Time{}, classPass
		p.tool.Stats.Count("paused", "given_back", 1)
		w.push(it)
	}
}

// heldURL is a held request's url, for its release record.
func heldURL(it *item) string {
	var r struct {
		URL string `json:"url"`
	}
	json.Unmarshal(it.raw, &r)
	return r.URL
}
