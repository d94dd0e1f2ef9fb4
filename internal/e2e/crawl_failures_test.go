package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrawlFailures: cqueue crawl --failures FILE keeps every page that
// failed, with its status and the page that linked it, and the account
// names the first few, the rest counted: the demo site's dead links that
// the demo rules follow (its discontinued products, listed in their
// category) are each there once, linked from a page of the site; the 404s
// in FILE are the 404s the account counts.
func TestCrawlFailures(t *testing.T) {
	l := seededCrawlSite(t, loopSite)
	r := l.runCrawl(`--stats acct.json --failures failures.jsonl seeds.txt "$RULES" items.csv`)
	r.want(t, 0, "cqueue: complete: nothing is left queued or in flight\n")

	all, notFound := readFailures(t, l)
	if want := l.site.Shape().Discontinued; len(notFound) != want || want <= 5 {
		t.Errorf("%d pages logged with a 404, want %d (the discontinued products), more than the account shows", len(notFound), want)
	}

	var acct struct {
		Pages struct {
			ByStatus map[string]int64 `json:"by_status"`
		} `json:"pages"`
		Failures struct {
			Count int64             `json:"count"`
			File  string            `json:"file"`
			First []json.RawMessage `json:"first"`
		} `json:"failures"`
	}
	readJSONFile(t, filepath.Join(l.dir, "acct.json"), &acct)
	if n := acct.Pages.ByStatus["404"]; n != int64(len(notFound)) {
		t.Errorf("the account counts %d 404s, failures.jsonl has %d", n, len(notFound))
	}
	if acct.Failures.Count != int64(len(all)) || acct.Failures.File != "failures.jsonl" || len(acct.Failures.First) != min(5, len(all)) {
		t.Errorf("--stats failures: %d in %q, %d shown; want %d in failures.jsonl, %d shown", acct.Failures.Count, acct.Failures.File, len(acct.Failures.First), len(all), min(5, len(all)))
	}
	head := fmt.Sprintf("cqueue: %d pages failed or had items dropped (every one in failures.jsonl):\n", len(all))
	more := fmt.Sprintf("cqueue:   … and %d more\n", len(all)-5)
	r.want(t, 0, head, more, fmt.Sprintf("cqueue:   %s: %s, linked from %s\n", all[0].URL, describe(all[0].Status, all[0].Error), all[0].Referer))
}

// describe is how the account gives a failed page's status or error.
func describe(status int, err string) string {
	if err != "" {
		return err
	}
	return fmt.Sprint(status)
}

// failure is a record of --failures FILE.
type failure struct {
	Kind, URL, Reason, Referer, Error string
	Status                            int
}

// readFailures reads l's failures.jsonl: every record, and the 404s by
// URL, each checked: a 404 logged twice, or without its reason or the
// page of the site that linked it, is an error.
func readFailures(t *testing.T, l *loop) (all []failure, notFound map[string]failure) {
	t.Helper()
	f, err := os.Open(filepath.Join(l.dir, "failures.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	notFound = map[string]failure{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var x failure
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil || x.Kind != "failure" || x.URL == "" || x.Reason == "" {
			t.Fatalf("failures.jsonl: %q: %v", sc.Text(), err)
		}
		all = append(all, x)
		if x.Status == 404 {
			if _, dup := notFound[x.URL]; dup {
				t.Errorf("%s logged twice", x.URL)
			}
			notFound[x.URL] = x
			if x.Reason != "status_404" || !strings.HasPrefix(x.Referer, l.url+"/") {
				t.Errorf("a 404 without its reason or the page of the site that linked it: %+v", x)
			}
		}
	}
	return all, notFound
}

// TestCrawlFailuresOverResumedRuns: a run that resumes a round (here
// after --max-pages stopped the one before) adds to --failures FILE: the
// file has every failed page of the round, the earlier run's too, and the
// account counts this run's, saying how many the earlier runs wrote. The
// next round writes the file anew.
func TestCrawlFailuresOverResumedRuns(t *testing.T) {
	l := seededCrawlSite(t, loopSite)
	r := l.runCrawl(`--failures failures.jsonl seeds.txt "$RULES" items.csv --max-pages 150`)
	r.want(t, 5, "cqueue: stopped: max_pages reached (150)")
	first, _ := readFailures(t, l)
	r = l.runCrawl(`--stats acct.json --failures failures.jsonl seeds.txt "$RULES" items.csv --max-pages 0`)
	r.want(t, 0, "cqueue: complete: nothing is left queued or in flight\n")
	all, notFound := readFailures(t, l)
	if want := l.site.Shape().Discontinued; len(notFound) != want {
		t.Errorf("%d pages logged with a 404 over the two runs, want %d (the discontinued products)", len(notFound), want)
	}
	if len(first) == 0 || len(first) == len(all) {
		t.Fatalf("the first run logged %d failed pages of %d: the test wants some in each run", len(first), len(all))
	}
	acct := readFailuresAccount(t, l)
	if acct.Count != int64(len(all)-len(first)) || acct.Earlier != int64(len(first)) {
		t.Errorf("--stats failures: count %d, earlier_runs %d; want %d and %d", acct.Count, acct.Earlier, len(all)-len(first), len(first))
	}
	r.want(t, 0, fmt.Sprintf("cqueue: %d pages failed or had items dropped (every one in failures.jsonl, after the %d of the round's earlier runs):\n", len(all)-len(first), len(first)))

	// Round 2 begins: the file is written anew.
	r = l.runCrawl(`--stats acct.json --failures failures.jsonl seeds.txt "$RULES" items.csv --next-round --max-pages 150`)
	r.want(t, 5, "cqueue: stopped: max_pages reached (150)")
	again, _ := readFailures(t, l)
	if acct := readFailuresAccount(t, l); len(again) == 0 || len(again) >= len(all) || acct.Count != int64(len(again)) || acct.Earlier != 0 {
		t.Errorf("round 2's first run: %d failed pages in the file (round 1 had %d), the account counts %d, %d of earlier runs; want the file written anew, all of it counted", len(again), len(all), acct.Count, acct.Earlier)
	}
}

// readFailuresAccount reads the failures of the account in l's acct.json.
func readFailuresAccount(t *testing.T, l *loop) (f struct{ Count, Earlier int64 }) {
	t.Helper()
	var acct struct {
		Failures struct {
			Count   int64 `json:"count"`
			Earlier int64 `json:"earlier_runs"`
		} `json:"failures"`
	}
	readJSONFile(t, filepath.Join(l.dir, "acct.json"), &acct)
	return struct{ Count, Earlier int64 }{acct.Failures.Count, acct.Failures.Earlier}
}
