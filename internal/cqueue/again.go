package cqueue

import (
	"context"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// Seeds queued again (Seeds.Again): cqueue crawl pushes its seeds this way
// when the last run of the crawl's round could fetch nothing (the site
// was down) and nothing of the round is left. The round's duplicate filter
// has the seeds as seen, so pushed as usual they would be refused and the
// round could never go on.

// queueAgain reports whether batch entry i, which the frontier answered r,
// is to be queued again: refused as a duplicate, and its key not queued by
// this push already (a seed listed twice is fetched once). It notes the
// keys this push queues.
func (p *pusher) queueAgain(i int, r frontier.PushResult) bool {
	key := p.batch.Entries[i].Key
	switch {
	case r.Queued && !p.returned[i]:
		p.again[key] = true
	case r.Reason == frontier.ReasonDuplicate && !p.again[key]:
		p.again[key] = true
		return true
	}
	return false
}

// pushAgain queues the batch entries listed (see queueAgain) with
// dont_filter, counting each as queued, and also as "again".
func (p *pusher) pushAgain(idx []int) {
	if len(idx) == 0 || p.err != nil {
		return
	}
	entries := make([]frontier.Entry, len(idx))
	for j, i := range idx {
		entries[j] = p.batch.Entries[i]
		entries[j].DontFilter = true
	}
	res, err := p.f.Apply(context.Background(), frontier.Batch{Entries: entries}, p.now())
	if err != nil {
		p.fail(err)
		p.tool.Stats.DropN("not_stored", int64(len(idx)))
		return
	}
	st := p.tool.Stats
	for j, r := range res.Pushed {
		i := idx[j]
		switch {
		case !r.Queued:
			if p.discovered[i] {
				st.Count("discovered", r.Reason, 1)
			} else {
				p.refused(p.raws[i], r.Reason)
			}
		case p.discovered[i]:
			st.Out.Add(1)
			st.Count("discovered", "queued", 1)
			st.Count("discovered", "again", 1)
		default:
			st.Out.Add(1)
			st.Count("requests", "queued", 1)
			st.Count("requests", "again", 1)
		}
	}
}
