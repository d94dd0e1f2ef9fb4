package cexport

import (
	"time"

	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// Acks are batched: committing (flush + fsync) per ack would cost a disk
// sync per page. A held ack is committed when the input stalls (Flush), or
// once commitEvery records or commitAfter have gone by since it arrived,
// whichever comes first, and at the end.
const (
	commitEvery = 1000
	commitAfter = time.Second
)

// commitPace is the least time between two commits made because the input
// stalled: in a crawl whose pages come one at a time (slow servers), an
// fsync per page is what cexport would spend its time on. Measured in the
// crawl loop over a site answering in 20 ms. The acks it holds back free
// the frontier's window at most this much later.
const commitPace = 5 * time.Millisecond

// passer carries the records that are not items on to stdout when the
// items go to a file, so the crawl loop flows on through cexport. Requests
// and other records are written at once. Acks are held until every item
// read before them is durable: an ack tells the frontier a page is done,
// and after a crash its items must not be missing from the file.
//
// Its methods are called from the one goroutine that reads the input.
type passer struct {
	out *ndjson.Writer
	// durable flushes the exporter and fsyncs the file.
	durable func() error
	now     func() time.Time

	pending    [][]byte
	oldest     time.Time // when the first held ack arrived
	records    int       // records read since then
	lastCommit time.Time // when the last commit was made (wall clock)
}

func newPasser(out *ndjson.Writer, durable func() error, now func() time.Time) *passer {
	return &passer{out: out, durable: durable, now: now}
}

// Forward writes a record that needs no holding back.
func (p *passer) Forward(raw []byte) error { return p.out.WriteLine(raw) }

// Ack holds an ack until the items before it are durable. raw must not be
// changed afterwards.
func (p *passer) Ack(raw []byte) {
	if len(p.pending) == 0 {
		p.oldest = p.now()
		p.records = 0
	}
	p.pending = append(p.pending, raw)
}

// Seen counts a record read and commits when held acks are due.
func (p *passer) Seen() error {
	if len(p.pending) == 0 {
		return nil
	}
	p.records++
	if p.records >= commitEvery || p.now().Sub(p.oldest) >= commitAfter {
		return p.Commit()
	}
	return nil
}

// Commit makes the items read so far durable, then writes the held acks.
// When that fails the acks stay held: their items are not safe.
func (p *passer) Commit() error {
	if len(p.pending) == 0 {
		return nil
	}
	p.lastCommit = time.Now()
	if err := p.durable(); err != nil {
		return err
	}
	return p.Release()
}

// Release writes the held acks without syncing: the caller has made the
// items durable (at the end, after closing the export).
func (p *passer) Release() error {
	for i, a := range p.pending {
		if err := p.out.WriteLine(a); err != nil {
			return err
		}
		p.pending[i] = nil
	}
	p.pending = p.pending[:0]
	return nil
}

// Flush commits and writes everything out; called when the input stalls.
func (p *passer) Flush() error {
	if len(p.pending) > 0 && !p.lastCommit.IsZero() {
		if d := commitPace - time.Since(p.lastCommit); d > 0 {
			time.Sleep(d)
		}
	}
	if err := p.Commit(); err != nil {
		return err
	}
	return p.out.Flush()
}
