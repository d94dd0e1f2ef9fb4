package cextract

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/warc"
)

// readOutlinks reads the records of the WARC file path.
func readOutlinks(t *testing.T, path string) []*warc.Record {
	t.Helper()
	recs, err := warc.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// followUps are the URLs of the request records in out.
func followUps(t *testing.T, out string) []string {
	t.Helper()
	var urls []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct{ Kind, URL string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kind == "request" {
			urls = append(urls, r.URL)
		}
	}
	return urls
}

// TestWARCOutlinks: --warc-outlinks writes, after a warcinfo record, one
// metadata record per page that gave follow-up requests: its URL, a
// reference to its response record when the response names one, and one
// Heritrix-style "outlink: URL HOP CONTEXT" line per follow-up request,
// the same list as the requests on stdout (a link the crawl policy
// refuses is in neither). A page without links gives no record. A second
// run starts the next file of the series.
func TestWARCOutlinks(t *testing.T) {
	t.Parallel()
	const id = "<urn:uuid:0b1c7e9a-0000-4000-8000-000000000001>"
	req := map[string]any{"kind": "request", "url": "https://a.example/", "allowed_domains": []string{"a.example"}}
	in := response(t, "https://a.example/", `<a href="/p/1">1</a> <a href="https://b.example/">off</a> <img src="/i.png"> <a href="/p/1">again</a> <a href="/p 2">2</a>`, req, map[string]any{"warc_record_id": id}) + "\n" +
		response(t, "https://a.example/none", `<p>no links</p>`, req, nil) + "\n" +
		response(t, "https://a.example/p/3", `<a href="/p/4">4</a>`, req, nil) + "\n"
	path := filepath.Join(t.TempDir(), "links.warc.gz")
	for n, c := range []struct {
		args  []string
		lines [][]string // per metadata record
	}{
		{[]string{"--links"}, [][]string{
			{"outlink: https://a.example/p/1 L a/@href", "outlink: https://a.example/p%202 L a/@href"},
			{"outlink: https://a.example/p/4 L a/@href"},
		}},
		{[]string{"--links", "--kinds", "all"}, [][]string{
			{"outlink: https://a.example/p/1 L a/@href", "outlink: https://a.example/i.png E img/@src", "outlink: https://a.example/p%202 L a/@href"},
			{"outlink: https://a.example/p/4 L a/@href"},
		}},
	} {
		out, stderr, code := run(t, in, append(c.args, "-q", "--warc-outlinks", path)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		file := warc.Name(path, n) // never appended to: the next of the series
		recs := readOutlinks(t, file)
		if len(recs) != 3 || recs[0].Type() != warc.TypeWarcinfo {
			t.Fatalf("%v: %d records in %s, want warcinfo and 2 metadata", c.args, len(recs), file)
		}
		var listed []string
		for i, r := range recs[1:] {
			want := map[string]string{
				"WARC-Type":         "metadata",
				"WARC-Target-URI":   []string{"https://a.example/", "https://a.example/p/3"}[i],
				"WARC-Refers-To":    []string{id, ""}[i],
				"Content-Type":      "application/warc-fields",
				"WARC-Block-Digest": warc.Digest(r.Block),
			}
			for k, v := range want {
				if r.Get(k) != v {
					t.Errorf("%v: record %d: %s = %q, want %q", c.args, i, k, r.Get(k), v)
				}
			}
			lines := strings.Split(strings.TrimSuffix(string(r.Block), "\r\n"), "\r\n")
			if !slices.Equal(lines, c.lines[i]) {
				t.Errorf("%v: record %d:\n%s\nwant\n%s", c.args, i, strings.Join(lines, "\n"), strings.Join(c.lines[i], "\n"))
			}
			for _, l := range lines {
				listed = append(listed, strings.Fields(l)[1])
			}
		}
		if got := followUps(t, out); !slices.Equal(listed, got) {
			t.Errorf("%v: outlinks %q, follow-up requests %q", c.args, listed, got)
		}
	}
}
