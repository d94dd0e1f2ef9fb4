package cthrottle

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// A pause record gives back, as release records, the leased requests of
// its crawl held for a later slot, and only those.
func TestGivesBack(t *testing.T) {
	p := &pipeline{tool: cli.NewTool("cthrottle", io.Discard)}
	w := newWaiting()
	later := time.Now().Add(time.Hour)
	held := func(seq uint64, crawl, lease string, at time.Time) *item {
		it := &item{raw: []byte(`{"kind":"request","url":"https://a.test/` + lease + `","crawlid":"` + crawl + `","lease":"` + lease + `"}`),
			class: classKeyed, key: "a.test", crawl: crawl, lease: lease, at: at, seq: seq, index: -1}
		w.push(it)
		return it
	}
	held(0, "shop", "L0", time.Now().Add(-time.Second)) // due already (a key's slots go in input order)
	held(1, "shop", "L1", later)
	held(2, "other", "L2", later)
	held(3, "shop", "L3", later)
	held(4, "shop", "", later) // not leased: nothing to give back
	p.givesBack(w, &item{class: classPass, pause: "shop", index: -1})
	var released, kept []string
	for w.Len() > 0 {
		it := w.pop()
		if strings.Contains(string(it.raw), `"kind":"release"`) {
			released = append(released, string(it.raw))
		} else {
			kept = append(kept, it.lease)
		}
	}
	want := []string{
		`{"kind":"release","lease":"L1","crawlid":"shop","url":"https://a.test/L1"}`,
		`{"kind":"release","lease":"L3","crawlid":"shop","url":"https://a.test/L3"}`,
	}
	if strings.Join(released, "\n") != strings.Join(want, "\n") {
		t.Errorf("released:\n%s\nwant:\n%s", strings.Join(released, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(kept, ",") != "L0,L2," {
		t.Errorf("kept %q, want L0 (due), then L2 (another crawl) and the unleased one", kept)
	}
	if n := p.tool.Stats.JSON("cthrottle").Counts["paused"]["given_back"]; n != 2 {
		t.Errorf("counted %d given back", n)
	}
}
