package cextract

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// TestBodiesLeftInTheRecord runs the package's end-to-end tests with every
// body left in its record line and read from there, as a large one is (see
// body): what is extracted does not depend on where the body is read from.
func TestBodiesLeftInTheRecord(t *testing.T) {
	if updateGolden() {
		t.Skip("not while the golden files are written")
	}
	explain := func(t *testing.T) string {
		out, stderr, code := runFiles(t, "-r", "../../testdata/rules/demo-sitemap.yml", "--explain", demoResponsesFile)
		if code != 0 {
			t.Fatalf("--explain: exit %d: %s", code, stderr)
		}
		return out
	}
	want := explain(t)
	defer func(n int) { streamBodyFrom = n }(streamBodyFrom)
	streamBodyFrom = 0
	t.Run("Explain", func(t *testing.T) {
		if got := explain(t); got != want {
			t.Errorf("--explain differs:\n%s\nwant\n%s", got, want)
		}
	})
	for name, test := range map[string]func(*testing.T){
		"Golden":                                     TestGolden,
		"DemoRulesMatchTheTruth":                     TestDemoRulesMatchTheTruth,
		"FeedsGiveItemsAndRequests":                  TestFeedsGiveItemsAndRequests,
		"FollowUpRequestsInheritTheCrawl":            TestFollowUpRequestsInheritTheCrawl,
		"OrderItemsThenLinksThenAck":                 TestOrderItemsThenLinksThenAck,
		"FailedResponsesGiveOnlyTheirAck":            TestFailedResponsesGiveOnlyTheirAck,
		"OtherRecordsPassThroughUnchanged":           TestOtherRecordsPassThroughUnchanged,
		"BadRecordsAreReportedAndTheStreamGoesOn":    TestBadRecordsAreReportedAndTheStreamGoesOn,
		"EmptyItemsAreCountedNotErrors":              TestEmptyItemsAreCountedNotErrors,
		"DeeplyNestedPageStillYieldsItsTextAndLinks": TestDeeplyNestedPageStillYieldsItsTextAndLinks,
	} {
		t.Run(name, test)
	}
}

// A body reads the same, in whole, in its first bytes (what it is sniffed
// by) and in length, whether it is held decoded, left in the record or
// kept compressed.
func TestBodyForms(t *testing.T) {
	for _, text := range []string{"", "  ", "<html>", " \r\n\t\ufeff\ufeff <?xml?><urlset>", "\ufeff{\"a\":1}",
		strings.Repeat(" ", 5000) + "<rss>" + strings.Repeat("é\n\"", 600), "\ufeff", " \xef\xbb", "\xff<html>"} {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write([]byte(text))
		zw.Close()
		quoted := record.AppendString(nil, text)
		mended, _ := record.Unquote(quoted) // invalid UTF-8 as U+FFFD
		for _, c := range []struct {
			b    body
			want string
		}{
			{body{text: text, ok: true, size: len(text)}, text},
			{body{quoted: quoted, size: -1}, mended},
			{body{gz: z.Bytes(), size: len(text)}, text},
		} {
			head := strings.TrimLeft(c.want, sniffSpace)
			head = head[:min(len(head), 512)]
			if got := c.b.head(); got != head || sniffFormat(got) != sniffFormat(c.want) {
				t.Errorf("%.20q: head %.20q, want %.20q", c.want, got, head)
			}
			if got := c.b.len(); got != len(c.want) {
				t.Errorf("%.20q: len %d, want %d", c.want, got, len(c.want))
			}
			if got := c.b.whole(); got != c.want || c.b.len() != len(c.want) {
				t.Errorf("%.20q: whole %.20q", c.want, got)
			}
		}
	}
}

// TestLargeSitemapIsReadInLittleMemory guards that a sitemap is read as a
// stream: while the response line of a sitemap of 60,000 URLs (6 MB) is
// processed, the heap holds the line, and for each URL emitted at most
// 100 bytes (its hash, and the records not yet written); not the body
// decoded, once unescaped and once as a string, nor the URLs whole, which
// made four times the line. Compressed (0.5 MB), it holds the line and the
// compressed body besides, not the sitemap decompressed. Measured as the
// live heap after a collection at every megabyte of output: not timed,
// and whatever the collector's pace.
func TestLargeSitemapIsReadInLittleMemory(t *testing.T) {
	const n = 60_000
	rules := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(rules, []byte("version: 1\nsitemaps:\n  - name: shop\n    allow: '/catalogue/'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, gz := range []bool{false, true} {
		line := bigSitemapLine(n, gz)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := int(ms.HeapAlloc)
		out := &heapWatcher{every: 1 << 20}
		code := execute(context.Background(), []string{"-q", "-r", rules}, bytes.NewReader(line), out, &bytes.Buffer{})
		if code != 0 || out.lines != n+1 || len(out.live) < 5 {
			t.Fatalf("gzip %v: exit %d, %d lines out (want %d), %d measures", gz, code, out.lines, n+1, len(out.live))
		}
		bound := len(line) + 100*n
		if gz {
			bound += len(line)
		}
		live := slices.Max(out.live) - base
		if live > bound {
			t.Errorf("gzip %v: %d KB live reading a line of %d KB, want at most %d KB", gz, live>>10, len(line)>>10, bound>>10)
		}
		t.Logf("gzip %v: %d KB live reading a line of %d KB (bound %d KB)", gz, live>>10, len(line)>>10, bound>>10)
	}
}

// heapWatcher is an output that measures the live heap at every `every`
// bytes written.
type heapWatcher struct {
	every, written, next int
	lines                int
	live                 []int
}

func (w *heapWatcher) Write(p []byte) (int, error) {
	w.written += len(p)
	w.lines += bytes.Count(p, []byte("\n"))
	if w.written >= w.next {
		w.next += w.every
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.live = append(w.live, int(ms.HeapAlloc))
	}
	return len(p), nil
}
