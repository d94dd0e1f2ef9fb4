package cexport

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// ackRig is a passer on a buffer with a fake clock and a counting commit.
type ackRig struct {
	out     bytes.Buffer
	w       *ndjson.Writer
	p       *passer
	clock   time.Time
	syncs   int
	syncErr error
}

func newAckRig() *ackRig {
	r := &ackRig{clock: time.Unix(1e9, 0)}
	r.w = ndjson.NewWriter(&r.out)
	r.p = newPasser(r.w, func() error { r.syncs++; return r.syncErr }, func() time.Time { return r.clock })
	return r
}

// written is what reached the output, flushed.
func (r *ackRig) written() string {
	r.w.Flush()
	return r.out.String()
}

func TestAcksWaitForCommit(t *testing.T) {
	r := newAckRig()
	r.p.Forward([]byte(`{"kind":"request","url":"u"}`))
	r.p.Ack([]byte(`{"kind":"ack","lease":"1"}`))
	r.p.Seen()
	if got := r.written(); got != `{"kind":"request","url":"u"}`+"\n" || r.syncs != 0 {
		t.Fatalf("before commit: output %q, %d syncs; want the request only", got, r.syncs)
	}
	if err := r.p.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := r.written(); !strings.HasSuffix(got, `{"kind":"ack","lease":"1"}`+"\n") || r.syncs != 1 {
		t.Fatalf("after Flush: output %q, %d syncs", got, r.syncs)
	}
	r.p.Flush()
	if r.syncs != 1 {
		t.Fatalf("Flush with no acks held synced again (%d)", r.syncs)
	}
}

func TestAcksCommitEveryNRecords(t *testing.T) {
	r := newAckRig()
	for range 5000 { // records before any ack do not count
		r.p.Seen()
	}
	r.p.Ack([]byte(`{"kind":"ack","lease":"1"}`))
	for range commitEvery - 1 {
		r.p.Seen()
	}
	if r.syncs != 0 {
		t.Fatalf("committed after %d records", commitEvery-1)
	}
	r.p.Seen()
	if r.syncs != 1 || !strings.Contains(r.written(), `"lease":"1"`) {
		t.Fatalf("not committed after %d records: %d syncs", commitEvery, r.syncs)
	}
}

func TestAcksCommitAfterDelay(t *testing.T) {
	r := newAckRig()
	r.p.Ack([]byte(`{"kind":"ack","lease":"1"}`))
	r.clock = r.clock.Add(commitAfter - time.Millisecond)
	r.p.Seen()
	r.p.Ack([]byte(`{"kind":"ack","lease":"2"}`))
	if r.syncs != 0 {
		t.Fatal("committed before the delay")
	}
	r.clock = r.clock.Add(time.Millisecond)
	r.p.Seen()
	if got := r.written(); r.syncs != 1 || got != `{"kind":"ack","lease":"1"}`+"\n"+`{"kind":"ack","lease":"2"}`+"\n" {
		t.Fatalf("after the delay: %d syncs, output %q", r.syncs, got)
	}
}

func TestAcksHeldWhenSyncFails(t *testing.T) {
	r := newAckRig()
	r.syncErr = errors.New("fsync items.csv: input/output error")
	r.p.Ack([]byte(`{"kind":"ack","lease":"1"}`))
	if err := r.p.Flush(); err == nil {
		t.Fatal("Flush hid the sync error")
	}
	if got := r.written(); got != "" || len(r.p.pending) != 1 {
		t.Fatalf("ack passed on although its items are not durable: %q", got)
	}
}
