package e2e

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// readmeSite is the address the README's examples use for the demo site;
// the test serves the site elsewhere and rewrites it.
const readmeSite = "http://127.0.0.1:8080"

// TestREADMEExamples runs every ```console block of README.md and docs/*.md
// as a user would type it, against the demo site, and compares the output
// with what the document shows. A block is a list of "$ command" lines, each
// followed by its expected stdout.
func TestREADMEExamples(t *testing.T) {
	dir := t.TempDir()
	n := 0
	nth := map[string]int{} // the blocks of each document, numbered from 1
	for _, b := range fencedBlocks(t, "console") {
		nth[b.Doc]++
		name := fmt.Sprintf("%s_%d.txtar", strings.TrimSuffix(filepath.Base(b.Doc), ".md"), nth[b.Doc])
		if err := os.WriteFile(filepath.Join(dir, name), []byte(toScript(strings.TrimSuffix(b.Body, "\n"))), 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Skip("no console examples in the docs")
	}
	scripttest.Run(t, dir, func(env *testscript.Env) error {
		srv := httptest.NewServer(demosite.New(demosite.Options{}))
		env.Defer(srv.Close)
		env.Setenv("SITE", srv.URL)
		// Examples name files of the repository, as from its top.
		return copyDir("../../testdata/rules", filepath.Join(env.WorkDir, "testdata", "rules"))
	})
}

// toScript turns "$ cmd" + output lines into a testscript: each command runs
// under bash (as a user types it, no pipefail) with SITE set, and its stdout must equal the shown
// output (with the README's site address replaced by the test's).
func toScript(block string) string {
	var script, files strings.Builder
	step := 0
	var cmd string
	var out []string
	flush := func() {
		if cmd == "" {
			return
		}
		step++
		fmt.Fprintf(&files, "-- cmd%d.sh --\n%s\n-- want%d --\n", step, cmd, step)
		for _, o := range out {
			fmt.Fprintf(&files, "%s\n", o)
		}
		fmt.Fprintf(&script, "exec bash -c 'sed \"s#%s#$SITE#g\" want%d > want%d.sub'\nexec bash cmd%d.sh\ncmp stdout want%d.sub\n", readmeSite, step, step, step, step)
		cmd, out = "", nil
	}
	for _, line := range strings.Split(block, "\n") {
		if c, ok := strings.CutPrefix(line, "$ "); ok {
			flush()
			cmd = "SITE=${SITE:-" + readmeSite + "}\n" + c
			continue
		}
		if cmd != "" {
			out = append(out, line)
		}
	}
	flush()
	return script.String() + files.String()
}

// copyDir copies the files of dir and of its subfolders to dst.
func copyDir(dir, dst string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := copyDir(filepath.Join(dir, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
