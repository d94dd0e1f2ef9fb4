package monitor

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// DeadLetter is a dead-lettered request as the API shows it.
type DeadLetter struct {
	URL      string `json:"url"`
	Method   string `json:"method,omitempty"`
	Host     string `json:"host"`
	Reason   string `json:"reason"`
	Retries  int    `json:"retries,omitempty"`
	Expiries int    `json:"expiries,omitempty"`
	Abandons int    `json:"abandons,omitempty"`
	Priority int    `json:"priority"`
}

// deadList is what the dead-letter cache keeps of one crawl: every dead
// request counted by reason, the first keepDead of them in full.
type deadList struct {
	Total    int64
	ByReason map[string]int64
	Letters  []DeadLetter
}

// keepDead is how many dead letters per crawl the cache keeps in full.
const keepDead = 1000

// deadCache holds the dead letters of the last Dump. Dump walks every
// request the frontier holds, so it is not part of the sample: it runs
// when someone asks for dead letters, and again only once the frontier's
// dead count has changed and minEvery has passed since the last.
type deadCache struct {
	fr       frontier.Frontier
	minEvery time.Duration

	mu    sync.Mutex
	at    time.Time
	count int64 // the frontier's dead count the lists were made at
	lists map[string]*deadList
}

// get returns the dead letters by crawl, dumping again if they are stale
// (deadNow, the frontier's current dead count, differs from the one they
// were made at) and minEvery has passed; and when they were made.
func (d *deadCache) get(ctx context.Context, deadNow int64, now time.Time) (map[string]*deadList, time.Time, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lists != nil && (deadNow == d.count || now.Sub(d.at) < d.minEvery) {
		return d.lists, d.at, nil
	}
	lists := map[string]*deadList{}
	var total int64
	err := d.fr.Dump(ctx, func(e frontier.DumpEntry) error {
		if e.State != frontier.Dead {
			return nil
		}
		total++
		l := lists[e.CrawlID]
		if l == nil {
			l = &deadList{ByReason: map[string]int64{}}
			lists[e.CrawlID] = l
		}
		l.Total++
		l.ByReason[e.Reason]++
		if len(l.Letters) >= keepDead {
			return nil
		}
		var r struct {
			URL     string `json:"url"`
			Method  string `json:"method"`
			Retries int    `json:"retries"`
		}
		json.Unmarshal(e.Raw, &r) // a field that does not parse stays empty
		l.Letters = append(l.Letters, DeadLetter{URL: r.URL, Method: r.Method, Host: e.Host, Reason: e.Reason,
			Retries: r.Retries, Expiries: e.Expiries, Abandons: e.Abandons, Priority: e.Priority})
		return nil
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	d.lists, d.at, d.count = lists, now, total
	return lists, now, nil
}
