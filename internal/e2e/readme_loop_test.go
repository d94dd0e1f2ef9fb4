package e2e

import (
	"encoding/csv"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// TestREADMELoop runs the crawl loop the README opens with (its first
// ```sh block) as a user copies it, against the demo site (the seed URL
// rewritten to it), with a rules.yml that takes the seed page's title and
// follows nothing: every stage exits 0 and the page is exported. Then the
// same loop without the line that seeds it must fail (pop: nothing
// queued), not "succeed" with nothing crawled.
func TestREADMELoop(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	block := firstBlock(t, "README.md", "sh")
	seed := regexp.MustCompile(`(?m)^cqueue push (https?://\S+).*\n`)
	sm := seed.FindStringSubmatch(block)
	if sm == nil {
		t.Fatalf("the README's loop is not seeded by a line 'cqueue push URL':\n%s", block)
	}
	srv := httptest.NewServer(demosite.New(demosite.Options{Products: 5}))
	t.Cleanup(srv.Close)
	bin := binDir(t)
	run := func(script string) (statuses string, stderr string, dir string) {
		dir = t.TempDir()
		rules := "version: 1\nitems:\n  - name: page\n    fields:\n      title: {css: title, required: true}\n"
		if err := os.WriteFile(filepath.Join(dir, "rules.yml"), []byte(rules), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-c", script+"\necho \"${PIPESTATUS[*]}\" > statuses\n")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CRAWLUTILS_REDIS=", "GORACE=atexit_sleep_ms=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "statuses"))
		return strings.TrimSpace(string(b)), string(out), dir
	}

	seeded := strings.Replace(block, sm[1], srv.URL+"/", 1)
	statuses, stderr, dir := run(seeded)
	if statuses != "0 0 0 0 0 0" {
		t.Fatalf("the README's loop: exit statuses %q, want every stage 0\n%s", statuses, stderr)
	}
	f, err := os.Open(filepath.Join(dir, "items.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][0] != "title" || rows[1][0] == "" {
		t.Fatalf("items.csv: %q (%v), want a header and the seed page's title", rows, err)
	}

	unseeded := seed.ReplaceAllString(block, "")
	statuses, stderr, _ = run(unseeded)
	if !strings.HasPrefix(statuses, "1 ") || !strings.Contains(stderr, "cqueue: nothing queued: crawl.db has never been given a request") {
		t.Fatalf("the README's loop without its seeds: exit statuses %q, want pop's 1 (nothing queued)\n%s", statuses, stderr)
	}
}
