package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/warc"
)

// WARC files (docs/warc.md): written by cfetch --warc during a crawl,
// checked by a reader we did not write, read back by cfetch --from-warc,
// after a kill -9 too, and read from files wget wrote.

// warcioDir is where .ci/run installs warcio.js from the npm registry:
// $CRAWLUTILS_WARCIO_DIR, else ~/.cache/crawlutils/warcio. The test fails
// without it under CI, and is skipped, saying how to install it, outside.
func warcioDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CRAWLUTILS_WARCIO_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "crawlutils", "warcio")
	}
	_, nodeErr := exec.LookPath("node")
	_, err := os.Stat(filepath.Join(dir, "node_modules", "warcio", "dist", "index.js"))
	if nodeErr != nil || err != nil {
		msg := "warcio.js is not installed in " + dir + " (npm install --prefix " + dir + " warcio@2.4.11; .ci/run does it) or node is missing"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; skipped outside CI")
	}
	return dir
}

// validateWARC runs warcio.js over files: every record read, every digest
// recomputed. It returns the records it read (one JSON line each) and
// whether it found nothing wrong.
func validateWARC(t *testing.T, files ...string) (string, bool) {
	t.Helper()
	wd, _ := os.Getwd()
	cmd := exec.Command("node", append([]string{filepath.Join(wd, "testdata", "warcio_validate.mjs")}, files...)...)
	cmd.Env = append(os.Environ(), "WARCIO_DIR="+warcioDir(t))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && stderr.Len() > 0 {
		t.Logf("warcio.js stderr:\n%s", stderr.String())
	}
	return string(out), err == nil
}

// TestWARCValidatorFails: the validator is not a rubber stamp: a wrong
// payload digest fails it.
func TestWARCValidatorFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.warc.gz")
	w, err := warc.Create(path, warc.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := warc.New(warc.TypeResponse, time.Now(), []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"))
	r.Set("WARC-Target-URI", "http://example.com/")
	r.Set("WARC-Payload-Digest", warc.Digest([]byte("ho")))
	_ = w.Write(r)
	_ = w.Close()
	if out, ok := validateWARC(t, path); ok || !strings.Contains(out, "WARC-Payload-Digest") {
		t.Fatalf("warcio.js passed a wrong payload digest:\n%s", out)
	}
}

// TestWARCRoundTrip runs docs/warc.md's first example as a user copies
// it: a crawl of the demo site with --warc, then its WARC files
// re-extracted offline with the same rules. warcio.js checks the files,
// and the CSV re-extracted equals the live crawl's.
func TestWARCRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	warcioDir(t)
	example := firstBlock(t, "docs/warc.md", "sh")
	l := newCrawlSite(t, binDir(t), demosite.Options{Products: 120})
	l.writeFile("seeds.txt", l.url+"/\n")
	rules, err := os.ReadFile("../../testdata/rules/demo.yml")
	if err != nil {
		t.Fatal(err)
	}
	l.writeFile("shop.yml", string(rules))
	l.writeFile("new-shop.yml", string(rules))
	l.run("set -e -o pipefail\n" + example)
	files, _ := filepath.Glob(filepath.Join(l.dir, "shop*.warc.gz"))
	if len(files) != 1 {
		t.Fatalf("WARC files %v, want shop.warc.gz", files)
	}
	out, ok := validateWARC(t, files...)
	if !ok {
		t.Fatalf("warcio.js:\n%s", out)
	}
	if n := strings.Count(out, `"type":"response"`); n < 120 {
		t.Errorf("warcio.js read %d response records, want at least 120", n)
	}
	checkOutlinks(t, l, files[0])
	live, replay := sortedLines(t, filepath.Join(l.dir, "items.csv")), sortedLines(t, filepath.Join(l.dir, "items-v2.csv"))
	if len(live) < 100 {
		t.Fatalf("items.csv has %d lines", len(live))
	}
	if !slices.Equal(live, replay) {
		t.Errorf("the CSV re-extracted from the WARC file differs from the live crawl's: %d lines, %d live\nfirst replayed: %q\nfirst live:     %q", len(replay), len(live), first(replay), first(live))
	}
}

// checkOutlinks: the crawl's cextract --warc-outlinks file (docs/warc.md's
// example) is read by warcio.js, digests checked, and each of its
// metadata records refers to the response record of its page in the
// crawl's WARC file. Extracted again offline with --warc-outlinks, each
// page's outlinks are the follow-up requests cextract wrote for it, in
// order, and refer to the archived response too.
func checkOutlinks(t *testing.T, l *loop, archive string) {
	t.Helper()
	responses := map[string]string{} // WARC-Record-ID: WARC-Target-URI
	for _, r := range readAll(t, archive) {
		if r.Type() == warc.TypeResponse || r.Type() == warc.TypeRevisit {
			responses[r.Get("WARC-Record-ID")] = r.Get("WARC-Target-URI")
		}
	}
	links, _ := filepath.Glob(filepath.Join(l.dir, "links*.warc.gz"))
	if len(links) != 1 {
		t.Fatalf("outlink files %v, want links.warc.gz", links)
	}
	l.run("cfetch -q --from-warc shop.warc.gz | cextract -q -r new-shop.yml --warc-outlinks again.warc.gz > again.ndjson")
	again := filepath.Join(l.dir, "again.warc.gz")
	if out, ok := validateWARC(t, links[0], again); !ok {
		t.Fatalf("warcio.js on the outlinks:\n%s", out)
	} else if n := strings.Count(out, `"type":"metadata"`); n < 100 {
		t.Errorf("warcio.js read %d metadata records, want one a page (at least 100)", n)
	}
	outlinks := map[string][]string{} // page: its outlinks, offline
	for _, file := range []string{links[0], again} {
		for _, r := range readAll(t, file)[1:] {
			page := r.Get("WARC-Target-URI")
			if r.Type() != warc.TypeMetadata || r.Get("Content-Type") != "application/warc-fields" || responses[r.Get("WARC-Refers-To")] != page {
				t.Fatalf("%s: record %s of %s does not refer to its page's response record (WARC-Refers-To %s)", filepath.Base(file), r.Type(), page, r.Get("WARC-Refers-To"))
			}
			if file != again {
				continue
			}
			for _, line := range strings.Split(strings.TrimSuffix(string(r.Block), "\r\n"), "\r\n") {
				f := strings.Fields(line)
				if len(f) != 4 || f[0] != "outlink:" {
					t.Fatalf("%s: not an outlink line: %q", page, line)
				}
				outlinks[page] = append(outlinks[page], f[1])
			}
		}
	}
	followUps := map[string][]string{} // page (the referer): its follow-up requests
	b, err := os.ReadFile(filepath.Join(l.dir, "again.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct{ Kind, URL, Referer string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kind == "request" {
			followUps[r.Referer] = append(followUps[r.Referer], r.URL)
		}
	}
	if len(followUps) < 100 || !maps.EqualFunc(outlinks, followUps, slices.Equal) {
		t.Errorf("outlinks of %d pages differ from the follow-up requests of %d pages", len(outlinks), len(followUps))
	}
}

// readAll reads every record of the WARC file path.
func readAll(t *testing.T, path string) []*warc.Record {
	t.Helper()
	recs, err := warc.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func first(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}

// sortedLines is a file's lines, header first, the rest sorted.
func sortedLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(lines[1:])
	return lines
}

// TestWARCKill9: cfetch --warc killed with kill -9 mid-crawl leaves a
// file every response it wrote before the kill can be read back from (its
// record is on the file before its line is on stdout), that warcio.js
// reads to its last whole record; the next run starts the next file of
// the series and leaves the old one as it was.
func TestWARCKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short")
	}
	l := newCrawlSite(t, binDir(t), demosite.Options{Products: 400, Latency: 5 * time.Millisecond, PadBytes: 30 << 10})
	var urls strings.Builder
	for _, p := range l.site.Truth() {
		urls.WriteString(p.AbsURL(l.url) + "\n")
	}
	l.writeFile("urls.txt", urls.String())
	cmd := l.cmd(`cd "$W" && exec cfetch -q -c 8 --warc k.warc.gz urls.txt`)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	var seen []string
	for len(seen) < 40 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("cfetch ended after %d lines: %v", len(seen), err)
		}
		seen = append(seen, line)
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	rest, _ := io.ReadAll(br)
	_ = cmd.Wait()
	printed := len(seen) + strings.Count(string(rest), "\n")

	path := filepath.Join(l.dir, "k.warc.gz")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Our reader: every response printed is in the file; a record the
	// kill cut is reported at its offset, as the file's last.
	var replay, stderr bytes.Buffer
	rc := l.cmd(`cd "$W" && cfetch -q --from-warc k.warc.gz`)
	rc.Stdout, rc.Stderr = &replay, &stderr
	err = rc.Run()
	got := strings.Count(replay.String(), "\n")
	if got < printed || got >= len(l.site.Truth()) {
		t.Errorf("--from-warc gave %d responses; cfetch printed %d before the kill", got, printed)
	}
	cut := false
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || strings.Count(stderr.String(), "truncated record") != 1 {
			t.Fatalf("--from-warc: %v\n%s", err, stderr.String())
		}
		cut = true
		t.Logf("the kill cut a record: %s", stderr.String())
	}
	// warcio.js reads it: wholly, or up to the record the kill cut.
	if warcioDirOK() {
		out, ok := validateWARC(t, path)
		if !ok && (!cut || strings.Count(out, `"error"`) != 1) {
			t.Errorf("warcio.js on the killed file:\n%s", lastLines(out, 5))
		}
	}
	// The next run: a new file, the old one untouched.
	l.run(`cfetch -q --warc k.warc.gz <<< "` + l.url + `/" >/dev/null`)
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("the next run changed the killed run's file")
	}
	if _, err := os.Stat(filepath.Join(l.dir, "k-00001.warc.gz")); err != nil {
		t.Errorf("the next run's file: %v", err)
	}
}

// warcioDirOK says whether warcio.js is installed (or CI requires it, in
// which case validateWARC fails the test).
func warcioDirOK() bool {
	if os.Getenv("CI") != "" {
		return true
	}
	dir := os.Getenv("CRAWLUTILS_WARCIO_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "crawlutils", "warcio")
	}
	_, err := os.Stat(filepath.Join(dir, "node_modules", "warcio", "dist", "index.js"))
	_, nodeErr := exec.LookPath("node")
	return err == nil && nodeErr == nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// TestWARCFromWget: a WARC file Debian's wget wrote (wget --warc-file)
// of demo site pages, a redirect among them, re-extracted with
// cfetch --from-warc, gives what cfetch's own fetch of them gives.
func TestWARCFromWget(t *testing.T) {
	if _, err := exec.LookPath("wget"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("wget is missing (apt-get install wget; .ci/run does it)")
		}
		t.Skip("wget is missing; skipped outside CI")
	}
	l := newCrawlSite(t, binDir(t), demosite.Options{Products: 30})
	var urls strings.Builder
	for i, p := range l.site.Truth() {
		if i%3 == 0 {
			urls.WriteString(p.AbsURL(l.url) + "\n")
		}
	}
	urls.WriteString(l.url + "/p/4\n") // a redirect to product 4's page
	l.writeFile("urls.txt", urls.String())
	extract := ` | cextract -q -f url=@url -f title=h1 -f price='substring-after(//p[@class="price_color"], "£")' | cexport -q -f csv`
	l.run(`wget -q --warc-file=shop --no-warc-keep-log -O /dev/null -i urls.txt`)
	l.run(`cfetch -q --from-warc shop.warc.gz` + extract + ` > replay.csv`)
	l.run(`cfetch -q --no-robots < urls.txt` + extract + ` > live.csv`)
	live, replay := sortedLines(t, filepath.Join(l.dir, "live.csv")), sortedLines(t, filepath.Join(l.dir, "replay.csv"))
	if len(live) < 10 || !slices.Equal(live, replay) {
		t.Errorf("from wget's WARC:\n%s\nlive:\n%s", strings.Join(replay, "\n"), strings.Join(live, "\n"))
	}
}
