package cextract

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/record"
)

// goldenCases run a rules file over a stored stream of responses and
// compare everything cextract writes with a golden file: the same rules
// over the same responses give the same items and requests, byte for byte.
// Regenerate the golden files with -update after a deliberate change.
var goldenCases = []struct {
	name, rules, responses string
	exit                   int
}{
	{"demo", "../../testdata/rules/demo.yml", demoResponsesFile, 0},
	{"demo-sitemap", "../../testdata/rules/demo-sitemap.yml", demoResponsesFile, 0},
	{"demo-listings", "../../testdata/rules/books.yml", demoResponsesFile, 0},
	{"feeds", "../../testdata/rules/feeds.yml", feedResponsesFile, 3}, // one broken JSON response
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := []string{"-q", "-r", tc.rules, tc.responses}
			code := execute(context.Background(), args, strings.NewReader(""), &out, &errb)
			if code != tc.exit {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			golden := filepath.Join("testdata", "golden", tc.name+".jsonl")
			if updateGolden() {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				got := strings.Split(out.String(), "\n")
				exp := strings.Split(string(want), "\n")
				for i := 0; i < len(got) && i < len(exp); i++ {
					if got[i] != exp[i] {
						t.Fatalf("%s: line %d differs:\n got %s\nwant %s", golden, i+1, got[i], exp[i])
					}
				}
				t.Fatalf("%s: %d lines, want %d", golden, len(got), len(exp))
			}
		})
	}
}

// TestDemoRulesMatchTheTruth: testdata/rules/demo.yml, run over the stored
// crawl of the demo site, extracts exactly the site's ground truth, and its
// link rules reach every product (category → pages → products).
func TestDemoRulesMatchTheTruth(t *testing.T) {
	t.Parallel()
	out, stderr, code := runFiles(t, "-q", "-r", "../../testdata/rules/demo.yml", demoResponsesFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got []demosite.Product
	requested := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec struct {
			Kind string          `json:"kind"`
			Type string          `json:"type"`
			URL  string          `json:"url"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case "item":
			var p demosite.Product
			dec := json.NewDecoder(bytes.NewReader(rec.Data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&p); err != nil {
				t.Fatalf("%s: %v", rec.Data, err)
			}
			got = append(got, p)
		case "request":
			requested[rec.URL] = true
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].URL < got[j].URL })
	truth := demosite.New(demoOptions()).Truth()
	for i := range truth {
		truth[i].URL = truth[i].AbsURL(demoBase)
	}
	if len(got) != len(truth) {
		t.Fatalf("%d products, the truth has %d", len(got), len(truth))
	}
	for i := range truth {
		if !reflect.DeepEqual(got[i], truth[i]) {
			t.Errorf("product %d:\n got %+v\nwant %+v", i, got[i], truth[i])
		}
	}
	for _, p := range truth {
		id := p.URL[strings.LastIndex(strings.TrimSuffix(p.URL, "/"), "_")+1 : len(p.URL)-1]
		if !requested[p.URL] && !requested[demoBase+"/p/"+id] {
			t.Errorf("no request leads to %s", p.URL)
		}
	}
}

// runFiles runs cextract with args and no stdin.
func runFiles(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return run(t, "", args...)
}

// feedResponsesFile holds hand-made responses of feeds and APIs: an RSS
// feed with namespaces, a CSV feed, a JSON API with pagination, a
// gzip-compressed sitemap, and a page that does not parse.
const feedResponsesFile = "testdata/responses/feeds.jsonl"

// TestStoredFeedResponses regenerates feeds.jsonl with -update.
func TestStoredFeedResponses(t *testing.T) {
	t.Parallel()
	if !updateGolden() {
		if _, err := os.Stat(feedResponsesFile); err != nil {
			t.Fatalf("%v: run go test -run TestStoredFeedResponses -update", err)
		}
		return
	}
	var b bytes.Buffer
	req := func(u string, depth int) json.RawMessage {
		raw, _ := json.Marshal(map[string]any{"kind": "request", "url": u, "depth": depth, "crawlid": "feeds", "maxdepth": 3,
			"allowed_domains": []string{"feeds.test"}, "lease": "lease-" + strconv.Itoa(b.Len()%1000)})
		return raw
	}
	add := func(u, ctype, body string, base64body string) {
		r := &record.Response{Kind: record.KindResponse, URL: u, Request: req(u, 1), Status: 200,
			Headers: map[string]string{"content-type": ctype}, Body: body, BodyBase64: base64body, FetchedAt: "2026-01-01T00:00:00.000Z"}
		line, err := record.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
	}
	for _, f := range feedFixtures() {
		add(f.url, f.ctype, f.body, f.base64)
	}
	if err := os.WriteFile(feedResponsesFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
