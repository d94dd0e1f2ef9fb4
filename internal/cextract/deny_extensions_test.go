package cextract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/record"
)

// What a link rule's deny_extensions lets through, the frontier's push
// policy accepts: cextract's follow-ups, decoded as cqueue push decodes
// them, pass frontier.Policy. A rule without deny_extensions and the
// frontier agree on Scrapy's default list.
func TestFrontierAcceptsWhatTheRuleFollows(t *testing.T) {
	rulesFile := filepath.Join(t.TempDir(), "rules.yml")
	err := os.WriteFile(rulesFile, []byte(`links:
  - name: everything
    match: {url: '/files/'}
    deny_extensions: []
  - name: not-php
    match: {url: '/src/'}
    deny_extensions: [php]
  - name: default
    match: {url: '/list'}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	body := `<a href="a.pdf">1</a><a href="b.zip">2</a><a href="c.php">3</a><a href="d.html">4</a>`
	in := strings.Join([]string{
		response(t, "https://a.example/files/", body, map[string]any{"url": "https://a.example/files/", "crawlid": "c"}, nil),
		response(t, "https://a.example/src/", body, map[string]any{"url": "https://a.example/src/", "crawlid": "c"}, nil),
		response(t, "https://a.example/list", body, map[string]any{"url": "https://a.example/list", "crawlid": "c"}, nil),
	}, "\n") + "\n"
	out, stderr, code := run(t, in, "-q", "-r", rulesFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var followed []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var req record.Request
		if err := record.Decode([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		followed = append(followed, strings.TrimPrefix(req.URL, "https://a.example/"))
		if reason, detail := (frontier.Policy{}).Explain(&req, time.Now()); reason != "" {
			t.Errorf("the frontier refuses %s: %s (%s)", line, reason, detail)
		}
	}
	want := "files/a.pdf files/b.zip files/c.php files/d.html src/a.pdf src/b.zip src/d.html c.php d.html"
	if got := strings.Join(followed, " "); got != want {
		t.Errorf("followed %s\nwant     %s", got, want)
	}
}
