package crawl

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/docblocks"
)

// TestCrontabLineLogsTheExitStatus: the crontab line of docs/cron.md
// logs the exit status of the crawl, for a monitor to read, whichever
// shell cron runs it with: dash (Debian's /bin/sh), and bash (the /bin/sh
// of Fedora, RHEL and Arch, or SHELL=/bin/bash in the crontab), where a
// "$?" written after a "$(…)" in the same word is the status of that
// command substitution, not of the crawl.
func TestCrontabLineLogsTheExitStatus(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cron.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docblocks.Parse("docs/cron.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	cronLine := "" // the one line of the ```cron block that is no comment
	for _, b := range blocks {
		var lines []string
		for _, l := range strings.Split(strings.TrimSuffix(b.Body, "\n"), "\n") {
			if !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		if b.Lang == "cron" && len(lines) == 1 {
			cronLine = lines[0]
			break
		}
	}
	if cronLine == "" {
		t.Fatal("docs/cron.md has no ```cron block with a crontab line")
	}
	fields := strings.Fields(cronLine)
	if len(fields) < 6 {
		t.Fatalf("not a crontab line: %s", cronLine)
	}
	// What cron hands the shell: the command after the five time fields,
	// each "\%" a "%"; the crawl replaced by a command that exits 3.
	line := strings.TrimSpace(strings.SplitN(cronLine, " ", 6)[5])
	line = strings.ReplaceAll(line, `\%`, "%")
	crawl := regexp.MustCompile(`cqueue crawl [^>]*`)
	if !crawl.MatchString(line) {
		t.Fatalf("no cqueue crawl command in the crontab line: %s", line)
	}
	line = crawl.ReplaceAllLiteralString(line, "sh -c 'exit 3' ")
	line = strings.Replace(line, "cd /srv/crawls/shop && ", "", 1)
	for _, shell := range []string{"sh", "dash", "bash"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s: not installed", shell)
			continue
		}
		t.Run(shell, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(path, "-c", line)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s -c %q: %v\n%s", shell, line, err, out)
			}
			log, err := os.ReadFile(filepath.Join(dir, "crawl.log"))
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ exit 3$`).Match(log) {
				t.Errorf("%s: crawl.log is %q, want the time and \"exit 3\"", shell, log)
			}
		})
	}
}
