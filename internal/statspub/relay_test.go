package statspub

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"
)

// memSink keeps what it is given; block, when set, holds each Put until
// it is closed.
type memSink struct {
	mu    sync.Mutex
	got   []Snapshot
	block chan struct{}
}

func (m *memSink) Put(_ context.Context, _ time.Time, snaps ...Snapshot) error {
	if m.block != nil {
		<-m.block
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got = append(m.got, snaps...)
	return nil
}

func (m *memSink) Close() error { return nil }

// pipeRelay is a relay whose other end is ServeRelay over sink in this
// process (cqueue stats-relay runs the same function over a real store).
func pipeRelay(t *testing.T, sink Sink, openErr error) (*relay, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- ServeRelay(context.Background(), inR, outW, sink, openErr)
		outW.Close()
	}()
	r := newRelay(nil, inW, outR)
	r.pending = 1 // the answer to the opening
	return r, served
}

func TestRelayStoresEachRound(t *testing.T) {
	sink := &memSink{}
	r, served := pipeRelay(t, sink, nil)
	ctx := context.Background()
	if err := r.drain(ctx); err != nil {
		t.Fatalf("open: %v", err)
	}
	for i := range 3 {
		if err := r.Put(ctx, time.Unix(int64(i), 0), Snapshot{Tool: "cextract", PID: i}); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
	r.in.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != 3 || sink.got[2].PID != 2 {
		t.Fatalf("stored %+v", sink.got)
	}
}

func TestRelaySaysTheOpenError(t *testing.T) {
	r, _ := pipeRelay(t, nil, errors.New("x.db: no such frontier"))
	if err := r.drain(context.Background()); err == nil || err.Error() != "x.db: no such frontier" {
		t.Fatalf("open answered %v", err)
	}
}

// A Put that gives up leaves its answer to the next Put, which must not
// take it for its own.
func TestRelayLateAnswerIsNotTheNextOne(t *testing.T) {
	sink := &memSink{block: make(chan struct{})}
	r, _ := pipeRelay(t, sink, nil)
	if err := r.drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Put(ctx, time.Unix(1, 0), Snapshot{PID: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("put with a cancelled context: %v", err)
	}
	if r.pending != 1 {
		t.Fatalf("pending %d, want 1", r.pending)
	}
	close(sink.block)
	if err := r.Put(context.Background(), time.Unix(2, 0), Snapshot{PID: 2}); err != nil {
		t.Fatal(err)
	}
	if r.pending != 0 || len(sink.got) != 2 {
		t.Fatalf("pending %d, stored %+v", r.pending, sink.got)
	}
}
