package e2e

import (
	"bufio"
	"crypto/md5"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// filesRules are testdata/rules/demo-files.yml with one more file per
// product, a leaflet under /private/, which the demo site's robots.txt
// disallows.
func filesRules(t *testing.T) string {
	b, err := os.ReadFile("../../testdata/rules/demo-files.yml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "    files: [image_urls]", "      leaflet: {value: /private/leaflet.pdf}\n    files: [image_urls, leaflet]", 1)
	if s == string(b) {
		t.Fatal("demo-files.yml has no files: [image_urls]")
	}
	return s
}

// fileItem is an exported item (its data) with its files.
type fileItem struct {
	URL       string   `json:"url"`
	ImageURLs []string `json:"image_urls"`
	Files     []struct {
		URL, Path, Checksum, Status, Error string
	} `json:"files"`
}

func readFileItems(t *testing.T, path string) []fileItem {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fileItem
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it fileItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Logf("%s: torn line (a kill mid-write): %v", filepath.Base(path), err)
			continue
		}
		out = append(out, it)
	}
	return out
}

var productID = regexp.MustCompile(`_(\d+)/$`)

// checkFileItems checks that every item has its two files: the product's
// image with status want (stored under full/<SHA-1 of its URL>.jpg, its
// checksum the MD5 of what is stored), and the leaflet refused by
// robots.txt; and that every product of the site has such an item.
func checkFileItems(t *testing.T, l *loop, items []fileItem, want ...string) {
	t.Helper()
	seen := map[string]bool{}
	for _, it := range items {
		seen[it.URL] = true
		m := productID.FindStringSubmatch(it.URL)
		if m == nil || len(it.Files) != 2 {
			t.Errorf("item %s: files %+v", it.URL, it.Files)
			continue
		}
		img, leaflet := it.Files[0], it.Files[1]
		imgURL := l.url + "/media/" + m[1] + ".jpg"
		sum := sha1.Sum([]byte(imgURL))
		if img.URL != imgURL || img.Path != "full/"+hex.EncodeToString(sum[:])+".jpg" || !strings.Contains(strings.Join(want, " "), img.Status) {
			t.Errorf("item %s: image %+v, want %s stored at full/<sha1>.jpg, status %v", it.URL, img, imgURL, want)
			continue
		}
		content, err := os.ReadFile(filepath.Join(l.dir, "files", img.Path))
		if err != nil || !strings.HasPrefix(string(content), "\xff\xd8\xff") {
			t.Errorf("item %s: stored image: %v", it.URL, err)
			continue
		}
		if md := md5.Sum(content); hex.EncodeToString(md[:]) != img.Checksum {
			t.Errorf("item %s: checksum %s, the MD5 of the stored file is %x", it.URL, img.Checksum, md)
		}
		if leaflet.URL != l.url+"/private/leaflet.pdf" || leaflet.Status != "error" || !strings.HasPrefix(leaflet.Error, "robots") || leaflet.Path != "" {
			t.Errorf("item %s: leaflet %+v, want an error entry for robots.txt", it.URL, leaflet)
		}
	}
	for _, p := range l.site.Truth() {
		if !seen[p.AbsURL(l.url)] {
			t.Errorf("product %s not exported", p.URL)
		}
	}
}

// mediaHits counts the site's answers to /media/ paths, by path.
func mediaHits(l *loop) map[string]int {
	out := map[string]int{}
	for p, n := range l.site.Hits() {
		if strings.HasPrefix(p, "/media/") {
			out[p] = n
		}
	}
	return out
}

// TestCrawlFilesWithItems: cqueue crawl --files-dir on the demo site with
// rules whose product items have files: (Scrapy's FilesPipeline). Every
// item is exported once with its files; each image is fetched once, by the
// crawl's own cfetch, and stored once under full/<SHA-1>.jpg with the MD5
// the item gives; a file robots.txt disallows is an error entry saying so;
// the next round finds every image stored and fresh and fetches none.
func TestCrawlFilesWithItems(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	l := newCrawlSite(t, bin, demosite.Options{Products: 60})
	l.writeFile("seeds.txt", l.url+"/\n")
	l.writeFile("files.yml", filesRules(t))

	// Without --files-dir the rules are refused before anything is queued.
	r := l.runCrawl(`seeds.txt files.yml items.jsonl`)
	r.want(t, 2, `item rule "product" (files.yml:`, "files: image_urls, leaflet: give --files-dir DIR", "nothing was queued")

	r = l.runCrawl(`seeds.txt files.yml items.jsonl --files-dir files`)
	r.want(t, 0, "complete: nothing is left queued or in flight")
	items := readFileItems(t, filepath.Join(l.dir, "items.jsonl"))
	truth := len(l.site.Truth())
	if len(items) != truth {
		t.Errorf("%d items exported, want %d", len(items), truth)
	}
	checkFileItems(t, l, items, "downloaded")
	hits := mediaHits(l)
	if len(hits) != truth {
		t.Errorf("the site served %d images, want %d: %v", len(hits), truth, hits)
	}
	for p, n := range hits {
		if n != 1 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}
	if n := l.site.Hits()["/private/leaflet.pdf"]; n != 0 {
		t.Errorf("the leaflet robots.txt disallows was fetched %d times", n)
	}
	stored, _ := filepath.Glob(filepath.Join(l.dir, "files", "full", "*"))
	if len(stored) != truth {
		t.Errorf("%d files stored, want %d: %v", len(stored), truth, stored)
	}

	// The next round fetches every page again, and no image: each is
	// stored and fresh (--files-expires, FILES_EXPIRES).
	r = l.runCrawl(`seeds.txt files.yml items.jsonl --files-dir files`)
	r.want(t, 0, "round 2 begins")
	round1 := len(items)
	items = readFileItems(t, filepath.Join(l.dir, "items.jsonl"))[round1:]
	if len(items) != truth {
		t.Errorf("round 2: %d items exported, want %d", len(items), truth)
	}
	checkFileItems(t, l, items, "uptodate")
	for p, n := range mediaHits(l) {
		if n != 1 {
			t.Errorf("round 2: %s fetched %d times in all", p, n)
		}
	}
}

// TestCrawlFilesKilledAndRerun: the items waiting for their files wait in
// the frontier, so a crawl killed (SIGKILL, the whole group) at any moment
// and rerun exports every item with its files; an image fetched before the
// kill is found stored and fresh.
func TestCrawlFilesKilledAndRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	slow := demosite.Options{Products: 60, Latency: 30 * time.Millisecond}
	l := newCrawlSite(t, bin, slow)
	l.writeFile("seeds.txt", l.url+"/\n")
	l.writeFile("files.yml", filesRules(t))
	const kills = 2
	for range kills {
		c, _, _ := l.startCrawl(`seeds.txt files.yml items.jsonl --files-dir files`)
		// Once the loop is under way, however long it took to start.
		for deadline := time.Now().Add(time.Minute); l.site.Stats().Requests < 20 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.Wait()
		noProcessesLeft(t, c.Process.Pid)
	}
	before, _ := filepath.Glob(filepath.Join(l.dir, "files", "full", "*.jpg"))
	t.Logf("before the rerun: %d images stored, %d items exported", len(before), len(readFileItems(t, filepath.Join(l.dir, "items.jsonl"))))
	r := l.runCrawl(`seeds.txt files.yml items.jsonl --files-dir files`)
	if r.code != 0 {
		t.Fatalf("the rerun exited %d:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "round 2 begins") {
		t.Skip("the crawl was over before the last kill")
	}
	items := readFileItems(t, filepath.Join(l.dir, "items.jsonl"))
	checkFileItems(t, l, items, "downloaded", "uptodate")
	// An image is fetched again only when a kill came while it was in
	// flight or its item was not yet acked.
	for p, n := range mediaHits(l) {
		if n > 1+kills {
			t.Errorf("%s fetched %d times after %d kills", p, n, kills)
		}
	}
}
