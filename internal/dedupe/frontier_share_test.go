package dedupe_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cdedupe"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

var sharePrefixN atomic.Int64

// cdedupeRun runs cdedupe in process on stdin, as its main would.
func cdedupeRun(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Execute(context.Background(), cdedupe.Command(), args, cli.NewEnv(strings.NewReader(stdin), &out, &errb).WithEnv(nil))
	return code, out.String(), errb.String()
}

// TestShardedFrontierSharesSeenSets: cdedupe's namespace named by a crawl
// ID is the frontier's seen set of that crawl, split over the shards the
// same way (shards=3 on a cluster, one URL for both): URLs pushed to the
// frontier are duplicates to cdedupe, with fast and with Scrapy
// fingerprints, and URLs cdedupe has passed are duplicates to a push.
// A requests.seen file cannot be imported into a split namespace.
func TestShardedFrontierSharesSeenSets(t *testing.T) {
	ctx := context.Background()
	url := fmt.Sprintf("%s?shards=3&prefix=share%d:", redistest.SharedCluster(t), sharePrefixN.Add(1))
	f, err := frontier.OpenRedis(ctx, url, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Shards() != 3 {
		t.Fatalf("the frontier at %s has %d shards, want 3", url, f.Shards())
	}
	urls := func(crawl string, from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("http://host%d.test/%s/%d", i%12, crawl, i))
		}
		return out
	}
	push := func(crawl string, mode frontier.KeyMode, us []string) []frontier.PushResult {
		t.Helper()
		var es []frontier.Entry
		for _, u := range us {
			e, err := frontier.NewEntry(record.Request{URL: u, CrawlID: crawl}, mode)
			if err != nil {
				t.Fatal(err)
			}
			es = append(es, e)
		}
		res, err := f.Push(ctx, es, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	records := func(crawl string, us []string) string {
		var b strings.Builder
		for _, u := range us {
			fmt.Fprintf(&b, `{"kind":"request","url":%q,"crawlid":%q}`+"\n", u, crawl)
		}
		return b.String()
	}

	// Frontier first, then cdedupe: only the URLs never pushed pass.
	for _, c := range []struct {
		crawl string
		mode  frontier.KeyMode
		flags []string
	}{
		{"fast", frontier.KeyFast, nil},
		{"scrapy", frontier.KeyScrapy, []string{"--scrapy-fingerprints"}},
	} {
		for i, r := range push(c.crawl, c.mode, urls(c.crawl, 0, 36)) {
			if !r.Queued {
				t.Fatalf("%s: push %d: %+v", c.crawl, i, r)
			}
		}
		code, stdout, stderr := cdedupeRun(records(c.crawl, urls(c.crawl, 24, 48)), append([]string{"-q", "--redis", url}, c.flags...)...)
		if want := records(c.crawl, urls(c.crawl, 36, 48)); code != 0 || stdout != want {
			t.Errorf("%s: cdedupe after the frontier: exit %d, passed\n%s\nwant the 12 never pushed\n%s%s", c.crawl, code, stdout, want, stderr)
		}
	}

	// cdedupe first, then the frontier: what cdedupe passed is a
	// duplicate to a push.
	code, stdout, stderr := cdedupeRun(records("back", urls("back", 0, 24)), "-q", "--redis", url)
	if code != 0 || strings.Count(stdout, "\n") != 24 {
		t.Fatalf("cdedupe: exit %d, %d passed\n%s", code, strings.Count(stdout, "\n"), stderr)
	}
	for i, r := range push("back", frontier.KeyFast, urls("back", 12, 36)) {
		if dup := i < 12; r.Queued == dup || dup && r.Reason != frontier.ReasonDuplicate {
			t.Errorf("push of %s after cdedupe: %+v, want duplicate %v", urls("back", 12, 36)[i], r, dup)
		}
	}

	// No requests.seen into a split namespace; nothing is read.
	code, stdout, stderr = cdedupeRun("http://a.test/\n", "-q", "--redis", url, "--scrapy-fingerprints", "--namespace", "x",
		"--import-seen", filepath.Join("testdata", "requests.seen"))
	if code != 1 || stdout != "" || !strings.Contains(stderr, "--import-seen: the seen-set is split into 3 shards") {
		t.Errorf("import into a split namespace: exit %d, stdout %q, stderr %q; want exit 1 and why", code, stdout, stderr)
	}
}
