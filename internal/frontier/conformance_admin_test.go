package frontier

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// The conformance suite (see conformance_test.go): stop, expire, info, dump, and concurrent poppers.

func TestStop(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0,
			req(t, "http://a.test/1", "crawl", "c1"),
			req(t, "http://b.test/2", "crawl", "c1"),
			req(t, "http://a.test/3", "crawl", "c1"),
			req(t, "http://a.test/1", "crawl", "c2"))
		inflight := pop(t, f, 1, t0) // c1's a.test/1 (c1 queues come first)
		if inflight[0].CrawlID != "c1" {
			t.Fatalf("popped %+v", inflight[0])
		}
		n, err := f.Stop(ctx, "c1", t0)
		if err != nil || n != 2 {
			t.Fatalf("Stop = %d, %v; want 2 purged", n, err)
		}
		wantCounts(t, f, 1, 1, 0)
		if res := push(t, f, t0, req(t, "http://new.test/", "crawl", "c1")); res[0].Reason != ReasonStopped {
			t.Errorf("push to a stopped crawl = %+v", res[0])
		}
		// In-flight requests of a stopped crawl finish normally.
		if a, _ := f.Ack(ctx, leases(inflight), t0); a.Acked != 1 {
			t.Errorf("ack after stop = %+v", a)
		}
		// Blacklisting a crawl before it starts.
		if n, err := f.Stop(ctx, "c3", t0); n != 0 || err != nil {
			t.Errorf("Stop(new crawl) = %d, %v", n, err)
		}
		if res := push(t, f, t0, req(t, "http://a.test/", "crawl", "c3")); res[0].Reason != ReasonStopped {
			t.Errorf("push to a blacklisted crawl = %+v", res[0])
		}
		// An in-flight request of a stopped crawl whose lease expires is dropped.
		push(t, f, t0, req(t, "http://a.test/9", "crawl", "c4"))
		pop(t, f, 5, t0)
		f.Stop(ctx, "c4", t0)
		if r, _ := f.Reclaim(ctx, t0.Add(time.Hour)); r.Dropped != 1 {
			t.Errorf("Reclaim after stop = %+v, want 1 dropped", r)
		}
		info, _ := f.Info(ctx, InfoFilter{CrawlID: "c1"})
		if len(info.Crawls) != 1 || info.Crawls[0].State != StateStopped {
			t.Errorf("Info(c1) = %+v", info)
		}
		// Unstop: the crawl takes pushes again; what was purged stays purged.
		if err := f.Unstop(ctx, "c1", t0); err != nil {
			t.Fatal(err)
		}
		info, _ = f.Info(ctx, InfoFilter{CrawlID: "c1"})
		if len(info.Crawls) != 1 || info.Crawls[0].State != StateActive || info.Crawls[0].Pending != 0 {
			t.Errorf("Info(c1) after Unstop = %+v", info)
		}
		if res := push(t, f, t0, req(t, "http://new.test/", "crawl", "c1")); res[0].Reason != "" {
			t.Errorf("push after Unstop = %+v", res[0])
		}
		// Unstopping a crawl that is not stopped changes nothing.
		if err := f.Unstop(ctx, "c2", t0); err != nil {
			t.Fatal(err)
		}
		if err := f.Unstop(ctx, "nosuch", t0); err != nil {
			t.Fatal(err)
		}
		if info, _ := f.Info(ctx, InfoFilter{CrawlID: "c2"}); len(info.Crawls) != 1 || info.Crawls[0].State != StateActive || info.Crawls[0].Pending != 1 {
			t.Errorf("Info(c2) after Unstop = %+v", info)
		}
	})
}

func TestExpire(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		exp := t0.Add(time.Minute).Unix()
		push(t, f, t0,
			req(t, "http://a.test/1", "crawl", "c1", "app", "app1", "expires", exp),
			req(t, "http://a.test/2", "crawl", "c1", "app", "app1", "expires", exp),
			req(t, "http://a.test/3", "crawl", "c2"))
		if res := push(t, f, t0, req(t, "http://a.test/old", "crawl", "c3", "expires", t0.Unix())); res[0].Reason != ReasonExpired {
			t.Errorf("push of an expired request = %+v", res[0])
		}
		if ex, _ := f.Expire(ctx, t0); len(ex) != 0 {
			t.Errorf("Expire before expiry = %+v", ex)
		}
		inflight := pop(t, f, 1, t0)
		after := t0.Add(2 * time.Minute)
		ex, err := f.Expire(ctx, after)
		if err != nil {
			t.Fatal(err)
		}
		if want := []Expired{{CrawlID: "c1", AppID: "app1", Expires: exp, Purged: 1}}; !slices.Equal(ex, want) {
			t.Errorf("Expire = %+v, want %+v", ex, want)
		}
		if ex, _ := f.Expire(ctx, after); len(ex) != 0 {
			t.Errorf("second Expire reported again: %+v", ex)
		}
		wantCounts(t, f, 1, 1, 0)
		f.Ack(ctx, leases(inflight), after)
		if got := urls(t, pop(t, f, 5, after)); !slices.Equal(got, []string{"http://a.test/3"}) {
			t.Errorf("Pop after expiry = %v", got)
		}
	})
}

// TestPopPurgesExpired: Pop never hands out a request of an expired crawl,
// and Expire still reports the crawl afterwards.
func TestPopPurgesExpired(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		exp := t0.Add(time.Minute).Unix()
		push(t, f, t0, req(t, "http://a.test/1", "crawl", "c1", "expires", exp), req(t, "http://b.test/1", "crawl", "c2"))
		after := t0.Add(time.Hour)
		if got := urls(t, pop(t, f, 5, after)); !slices.Equal(got, []string{"http://b.test/1"}) {
			t.Errorf("Pop = %v", got)
		}
		if ex, _ := f.Expire(ctx, after); len(ex) != 1 || ex[0].CrawlID != "c1" || ex[0].Purged != 1 {
			t.Errorf("Expire after Pop purged = %+v", ex)
		}
		// A new, later expiry revives the crawl.
		if res := push(t, f, after, req(t, "http://a.test/2", "crawl", "c1", "expires", after.Add(time.Hour).Unix())); !res[0].Queued {
			t.Errorf("push with a new expiry = %+v", res[0])
		}
		info, _ := f.Info(ctx, InfoFilter{CrawlID: "c1"})
		if info.Crawls[0].State != StateActive || info.Crawls[0].Pending != 1 {
			t.Errorf("Info = %+v", info.Crawls[0])
		}
	})
}

func TestInfo(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0,
			req(t, "http://a.test/1", "crawl", "c1", "app", "app1", "prio", 5),
			req(t, "http://a.test/2", "crawl", "c1", "app", "app1", "prio", -1),
			req(t, "http://b.test/1", "crawl", "c1", "app", "app1", "prio", 2),
			req(t, "http://a.test/1", "crawl", "c2", "app", "app2", "expires", t0.Add(time.Hour).Unix()))
		pop(t, f, 1, t0) // c1 a.test/1, priority 5
		info, err := f.Info(ctx, InfoFilter{})
		if err != nil {
			t.Fatal(err)
		}
		want := Info{Crawls: []CrawlInfo{
			{CrawlID: "c1", AppID: "app1", State: StateActive, Pending: 2, InFlight: 1, HighPriority: 2, LowPriority: -1, Hosts: []HostInfo{
				{Host: "a.test", Pending: 1, InFlight: 1, HighPriority: -1, LowPriority: -1},
				{Host: "b.test", Pending: 1, HighPriority: 2, LowPriority: 2},
			}},
			{CrawlID: "c2", AppID: "app2", State: StateActive, Expires: t0.Add(time.Hour).Unix(), Pending: 1, Hosts: []HostInfo{
				{Host: "a.test", Pending: 1},
			}},
		}}
		if g, w := jsonOf(info), jsonOf(want); g != w {
			t.Errorf("Info\n got %s\nwant %s", g, w)
		}
		info, _ = f.Info(ctx, InfoFilter{AppID: "app2"})
		if len(info.Crawls) != 1 || info.Crawls[0].CrawlID != "c2" {
			t.Errorf("Info(appid app2) = %s", jsonOf(info))
		}
		info, _ = f.Info(ctx, InfoFilter{AppID: "app2", CrawlID: "c1"})
		if len(info.Crawls) != 0 {
			t.Errorf("Info(app2, c1) = %s", jsonOf(info))
		}
		info, _ = f.Info(ctx, InfoFilter{CrawlID: "nope"})
		if len(info.Crawls) != 0 {
			t.Errorf("Info(unknown crawl) = %s", jsonOf(info))
		}
	})
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDump(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1", "crawl", "c"), req(t, "http://a.test/2", "crawl", "c"))
		ls := pop(t, f, 1, t0)
		got := map[string]DumpEntry{}
		err := f.Dump(ctx, func(d DumpEntry) error {
			var r record.Request
			if err := record.Decode(d.Raw, &r); err != nil {
				t.Fatalf("dumped %s: %v", d.Raw, err)
			}
			got[r.URL] = d
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		a, b := got["http://a.test/1"], got["http://a.test/2"]
		if len(got) != 2 || a.State != InFlight || a.Lease != ls[0].Lease || !a.Deadline.Equal(ls[0].Deadline) || b.State != Queued || b.Lease != "" {
			t.Errorf("Dump = %+v", got)
		}
		if !strings.Contains(string(a.Raw), `"lease":"`+ls[0].Lease+`"`) || strings.Contains(string(b.Raw), "lease") {
			t.Errorf("dumped requests %s / %s", a.Raw, b.Raw)
		}
		line := a.Record()
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m["frontier"].(map[string]any)["state"] != InFlight {
			t.Errorf("Record() = %s (%v)", line, err)
		}
		stop := fmt.Errorf("stop")
		if err := f.Dump(ctx, func(DumpEntry) error { return stop }); err != stop {
			t.Errorf("Dump did not return fn's error as is: %v", err)
		}
	})
}

// TestRawPassesThrough: unknown fields and exact numbers survive the
// round trip, and so do the link_kind and source cextract gives every
// follow-up; a lease in a pushed record is dropped.
func TestRawPassesThrough(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		in := `{"kind":"request","url":"http://a.test/","attrs":{"n":12345678901234567890},"lease":"stale","x-custom":[1,"two"],` +
			`"link_kind":"navigation","source":"sitemap:url"}`
		e, err := ParseEntry([]byte(in), KeyFast)
		if err != nil {
			t.Fatal(err)
		}
		push(t, f, t0, e)
		ls := pop(t, f, 1, t0)
		var got, want map[string]any
		json.Unmarshal(ls[0].Raw, &got)
		json.Unmarshal([]byte(in), &want)
		want["lease"] = ls[0].Lease
		if jsonOf(got) != jsonOf(want) || !strings.Contains(string(ls[0].Raw), "12345678901234567890") {
			t.Errorf("popped %s\nwant %s", ls[0].Raw, jsonOf(want))
		}
	})
}

// TestConcurrentPoppers: goroutines popping and acking concurrently never
// get the same request twice, and together get every request exactly once.
func TestConcurrentPoppers(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		const n = 600
		var es []Entry
		for i := range n {
			es = append(es, req(t, fmt.Sprintf("http://h%d.test/%d", i%7, i), "prio", i%3))
		}
		for i := 0; i < n; i += 100 {
			push(t, f, t0, es[i:i+100]...)
		}
		var mu sync.Mutex
		got := map[string]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					res, err := f.Pop(ctx, PopOptions{Max: 7, Lease: time.Hour}, t0)
					ls := res.Leased
					if err != nil {
						t.Error(err)
						return
					}
					if len(ls) == 0 {
						return
					}
					mu.Lock()
					for _, u := range urls(t, ls) {
						got[u]++
					}
					mu.Unlock()
					if _, err := f.Ack(ctx, leases(ls), t0); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if len(got) != n {
			t.Errorf("%d distinct requests popped, want %d", len(got), n)
		}
		for u, c := range got {
			if c != 1 {
				t.Errorf("%s popped %d times", u, c)
			}
		}
		if done, _ := f.Done(ctx); !done {
			t.Errorf("not Done: %+v", counts(t, f))
		}
	})
}
