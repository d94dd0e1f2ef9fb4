package cqueue

import (
	"fmt"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Records of the crawl loop's own that cqueue push consumes.
const (
	// kindPause is pop --follow's word that a crawl it serves is paused,
	// {"kind":"pause","crawlid":ID}: a tool holding the crawl's requests
	// gives them back (kindRelease) and passes it on; push drops it.
	kindPause = "pause"
	// kindRelease gives a leased request back to the frontier unfetched,
	// {"kind":"release","lease":L,…}: the frontier queues it again at
	// once, no retry counted (frontier.Batch.Releases).
	kindRelease = "release"
)

// release adds a release record's lease to the batch.
func (p *pusher) release(line ndjson.Line, env record.Envelope) {
	var a record.Ack
	if err := record.Decode(env.Raw, &a); err != nil || a.Lease == "" {
		if err == nil {
			err = fmt.Errorf(`no "lease"`)
		}
		p.tool.Reject(line, "invalid", fmt.Errorf("invalid release: %v", err))
		return
	}
	p.batch.Releases = append(p.batch.Releases, a.Lease)
	p.records++
}
