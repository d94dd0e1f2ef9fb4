package monitor

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/docblocks"
)

// docAnswer is a ```json block of docs/monitor.md: what GET target answers.
type docAnswer struct {
	target string
	body   string
}

var (
	docHeading  = regexp.MustCompile(`^### GET (/api/v1/\S*)`)
	docOptional = regexp.MustCompile(`\[[^\]]*\]`)
)

// docAnswers are the examples of docs/monitor.md's JSON API, each with the
// resource its heading names (the crawl "shop", stalled hosts for
// /hosts as the example has them).
func docAnswers(t *testing.T) []docAnswer {
	src, err := os.ReadFile("../../docs/monitor.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docblocks.Parse("docs/monitor.md", src)
	if err != nil {
		t.Fatal(err)
	}
	var out []docAnswer
	for _, b := range blocks {
		m := docHeading.FindStringSubmatch(b.Heading)
		if b.Lang != "json" || m == nil {
			continue
		}
		target := docOptional.ReplaceAllString(m[1], "")
		target = strings.ReplaceAll(target, "crawlid=ID", "crawlid=shop")
		switch {
		case strings.HasPrefix(target, "/api/v1/hosts"):
			target += "&sort=stalled"
		case target == "/api/v1/series":
			target += "?crawlid=shop" // the example is a crawl's
		}
		out = append(out, docAnswer{target, strings.TrimSuffix(b.Body, "\n")})
	}
	return out
}

// TestDocsShowTheAnswers: every answer docs/monitor.md shows for a GET of
// the JSON API has only members the server's answer has, at the same
// places (in a list, those of its elements), so that a client written from
// the documents reads fields that are there.
func TestDocsShowTheAnswers(t *testing.T) {
	k := newKnown(t)
	now := t0.Add(time.Second)
	s := newServer(t, k, Options{}, &now)
	ctx := context.Background()
	if err := s.Sample(ctx, now); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(2 * time.Second)
	if err := s.Sample(ctx, now); err != nil {
		t.Fatal(err)
	}
	answers := docAnswers(t)
	if len(answers) < 8 {
		t.Fatalf("%d answers in docs/monitor.md; want one for each resource", len(answers))
	}
	for _, a := range answers {
		var shown, real any
		if err := json.Unmarshal([]byte(a.body), &shown); err != nil {
			t.Errorf("GET %s: the document's answer is not JSON: %v", a.target, err)
			continue
		}
		getJSON(t, s, a.target, &real)
		for _, p := range missing(shown, real, "") {
			t.Errorf("GET %s: the document shows %s, which the answer does not have", a.target, p)
		}
	}
}

// missing returns the paths of the members of shown that real lacks.
func missing(shown, real any, path string) []string {
	var out []string
	switch sv := shown.(type) {
	case map[string]any:
		rv, ok := real.(map[string]any)
		if !ok {
			return []string{path + " (an object)"}
		}
		keys := make([]string, 0, len(sv))
		for k := range sv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r, ok := rv[k]
			if slices.Contains(docCounts, k) {
				continue // keys of data, not of the API
			}
			if !ok {
				if !slices.Contains(docOnlyWhenSet, k) {
					out = append(out, path+"."+k)
				}
				continue
			}
			out = append(out, missing(sv[k], r, path+"."+k)...)
		}
	case []any:
		rv, ok := real.([]any)
		if !ok {
			return []string{path + " (a list)"}
		}
		if len(rv) == 0 || len(sv) == 0 {
			return nil
		}
		for _, e := range sv {
			out = append(out, missing(e, rv[0], path+"[]")...)
		}
	}
	return out
}

// docOnlyWhenSet are members the documents show that an answer has only
// when they are set: a crawl's round, start, elapsed time, totals and meta
// are those of a crawl cqueue crawl runs (the known crawl is pushed by
// hand).
var docOnlyWhenSet = []string{"round", "started_at", "elapsed_s", "totals", "meta"}

// docCounts are members whose keys are data (counters by name, errors by
// code, dead letters by reason), not the API's.
var docCounts = []string{"counters", "http_errors", "refused", "by_reason", "meta"}
