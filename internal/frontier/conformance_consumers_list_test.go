package frontier

import (
	"testing"
	"time"
)

// The conformance suite (see conformance_test.go): the list of consumers.

// TestConsumersList: Consumers lists each registered consumer with where
// it runs, its last beat and what it holds; one that leaves is gone.
func TestConsumersList(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		if cs, err := f.Consumers(ctx); err != nil || len(cs) != 0 {
			t.Fatalf("Consumers of an empty frontier = %v, %v; want none", cs, err)
		}
		push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"), req(t, "http://b.test/1"))
		a, err := f.Join(ctx, Consumer{Host: "m1", PID: 11}, t0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.Join(ctx, Consumer{Host: "m2", PID: 22, Boot: "boot-2"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Pop(ctx, PopOptions{Max: 2, Lease: time.Minute, Consumer: a}, t0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Beat(ctx, b, time.Minute, t0.Add(3*time.Second)); err != nil {
			t.Fatal(err)
		}
		cs, err := f.Consumers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]ConsumerInfo{
			a.ID: {Consumer: a, Beat: t0.Add(time.Second), Held: 2},
			b.ID: {Consumer: b, Beat: t0.Add(3 * time.Second), Held: 0},
		}
		if len(cs) != 2 {
			t.Fatalf("Consumers = %+v, want 2", cs)
		}
		if cs[0].ID > cs[1].ID {
			t.Errorf("Consumers not sorted by ID: %s, %s", cs[0].ID, cs[1].ID)
		}
		for _, c := range cs {
			w := want[c.ID]
			if c.Consumer != w.Consumer || !c.Beat.Equal(w.Beat) || c.Held != w.Held {
				t.Errorf("consumer %s = %+v, want %+v", c.ID, c, w)
			}
		}
		if err := f.Leave(ctx, a, t0.Add(4*time.Second)); err != nil {
			t.Fatal(err)
		}
		cs, err = f.Consumers(ctx)
		if err != nil || len(cs) != 1 || cs[0].ID != b.ID {
			t.Errorf("after a leaves, Consumers = %+v, %v; want b alone", cs, err)
		}
	})
}
