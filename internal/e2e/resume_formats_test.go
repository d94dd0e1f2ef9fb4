package e2e

import (
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrawlResumesEveryFormat runs the README's crawl command, kills its
// process group three times at random moments (after a random number of
// pages), and runs it again unchanged, for each export format: the export
// is one valid document holding every product, and a product twice only
// when its page was in flight at a kill.
func TestCrawlResumesEveryFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	bin := binDir(t)
	for _, ext := range []string{"csv", "jsonl", "json", "xml"} {
		t.Run(ext, func(t *testing.T) {
			slowSite := loopSite
			slowSite.Latency = 5 * time.Millisecond
			l := newCrawlSite(t, bin, slowSite)
			l.writeFile("seeds.txt", l.url+"/\n")
			out := "items." + ext
			const kills, window = 3, 32
			for range kills {
				c, _, _ := l.startCrawl(`seeds.txt "$RULES" ` + out + ` --pop '--window 32'`)
				l.waitRequests(l.site.Stats().Requests+20+rand.IntN(80), 30*time.Second)
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				c.Wait()
				noProcessesLeft(t, c.Process.Pid)
			}
			l.runCrawl(`seeds.txt "$RULES" `+out+` --pop '--window 32'`).want(t, 0)
			urls := exportedURLs(t, filepath.Join(l.dir, out), ext)
			got := map[string]int{}
			dups := 0
			for _, u := range urls {
				if got[u]++; got[u] > 1 {
					dups++
				}
			}
			for _, p := range l.site.Truth() {
				if got[p.AbsURL(l.url)] == 0 {
					t.Errorf("%s: product %s missing", out, p.URL)
				}
			}
			if len(got) != len(l.site.Truth()) {
				t.Errorf("%s: %d distinct products, want %d", out, len(got), len(l.site.Truth()))
			}
			if dups > kills*window {
				t.Errorf("%s: %d products exported twice after %d kills, more than what was in flight (%d)", out, dups, kills, kills*window)
			}
			t.Logf("%s: %d products, %d exported twice (in flight at a kill)", out, len(got), dups)
			if ext == "jsonl" {
				// cdedupe removes the items exported twice.
				n := strings.TrimSpace(l.run(`cdedupe -q --db "$W/seen.db" --key .url < "$W/` + out + `" | wc -l`))
				if n != strconv.Itoa(len(l.site.Truth())) {
					t.Errorf("after cdedupe --key .url: %s items, want %d", n, len(l.site.Truth()))
				}
			}
		})
	}
}

// exportedURLs reads the url of every item of an export, which must be one
// valid document of its format.
func exportedURLs(t *testing.T, path, format string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var urls []string
	switch format {
	case "csv":
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil || len(rows) == 0 || rows[0][0] != "url" {
			t.Fatalf("%s: not a CSV with a url column: %v", path, err)
		}
		for _, r := range rows[1:] {
			urls = append(urls, r[0])
		}
	case "jsonl":
		dec := json.NewDecoder(f)
		for dec.More() {
			var it struct{ URL string }
			if err := dec.Decode(&it); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			urls = append(urls, it.URL)
		}
	case "json":
		var items []struct{ URL string }
		if err := json.NewDecoder(f).Decode(&items); err != nil {
			t.Fatalf("%s: not one JSON array: %v", path, err)
		}
		for _, it := range items {
			urls = append(urls, it.URL)
		}
	case "xml":
		var doc struct {
			Items []struct {
				URL string `xml:"url"`
			} `xml:"item"`
		}
		if err := xml.NewDecoder(f).Decode(&doc); err != nil {
			t.Fatalf("%s: not one XML document: %v", path, err)
		}
		for _, it := range doc.Items {
			urls = append(urls, it.URL)
		}
	}
	return urls
}
