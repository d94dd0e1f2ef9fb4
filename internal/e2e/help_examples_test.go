package e2e

import (
	"fmt"
	"maps"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// TestHelpExamples runs every example of every command's --help (the
// Examples: section of cfetch, cextract, cexport, cdedupe, cthrottle and
// of each cqueue subcommand cqueue --help lists), as a user would type it:
// under bash, in a directory holding the files the examples name
// (exampleFilesScript), against the demo site; those naming a Redis or
// PostgreSQL server against a real one of their own. Each must exit 0,
// leave its outputs not empty, and write valid JSON records, none of them
// a response with an error, unless helpExampleRuns says otherwise. cqueue
// serve runs until it has answered a request, then is interrupted.
//
// The lines run with -e and pipefail, so a failing command anywhere in a
// pipeline fails the example.
func TestHelpExamples(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	texts := helpTexts(t, bin)
	var all []helpExample
	for _, name := range slices.Sorted(maps.Keys(texts)) {
		exs := examples(name, texts[name])
		if len(exs) == 0 && name != "cqueue" {
			t.Errorf("%s --help shows no examples (an Examples: section of indented command lines)", name)
		}
		all = append(all, exs...)
	}
	shown := map[string]bool{}
	for _, ex := range all {
		shown[ex.text] = true
	}
	for _, text := range slices.Sorted(maps.Keys(helpExampleRuns)) {
		if !shown[text] {
			t.Errorf("helpExampleRuns has an entry for %q, which no --help shows (any more)", text)
		}
	}
	srv := httptest.NewServer(demosite.New(demosite.Options{Products: 60}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	s := exampleSetup{bin: bin, site: srv.URL, sitePort: u.Port(), files: makeExampleFiles(t, bin, srv.URL)}
	n := map[string]int{}
	for _, ex := range all {
		n[ex.help]++
		how := helpExampleRuns[ex.text]
		t.Run(fmt.Sprintf("%s/%d", strings.ReplaceAll(ex.help, " ", "_"), n[ex.help]), func(t *testing.T) {
			if how.skip != "" {
				t.Skipf("%s: %s", ex.text, how.skip)
			}
			t.Parallel()
			s.run(t, ex, how)
		})
	}
}

// exampleSetup is what every example runs with.
type exampleSetup struct {
	bin      string // the commands
	site     string // the demo site's URL
	sitePort string
	files    string // the files the examples name, copied for each
}

// run runs one example in a directory of its own and checks what it did.
func (s exampleSetup) run(t *testing.T, ex helpExample, how exampleRun) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(s.files)); err != nil {
		t.Fatal(err)
	}
	script := rewriteExample(ex.text, s.site)
	if how.run != "" {
		script = how.run
	}
	script, serverEnv := startServers(t, script)
	env := append(exampleEnv(s.bin, dir), "SITE="+s.site, "SITE_PORT="+s.sitePort)
	env = append(env, serverEnv...)
	if needsDB(script) {
		env = append(env, "CRAWLUTILS_DB=crawl.db")
	}
	if how.prep != "" {
		shellIn(t, dir, env, "prep", how.prep)
	}
	t.Logf("$ %s", strings.ReplaceAll(script, "\n", "\n$ "))
	r := runShown(t, dir, env, script, how.untilOutput)
	if how.fails && r.code > 0 {
		how.status = r.code
	}
	if r.code != how.status && !(r.serve && r.code == 130) {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, how.status, tail(r.stdout), tail(r.stderr))
	}
	out := how.out
	if out == nil && !r.serve {
		out = outputs(helpExample{cmds: strings.Split(script, "\n")})
		if len(out) == 0 {
			out = []string{"-"}
		}
	}
	for _, f := range out {
		checkOutput(t, dir, f, r.stdout)
	}
	checkRecords(t, "stdout", r.stdout)
	if how.stdout != "" && !regexp.MustCompile(how.stdout).MatchString(r.stdout) {
		t.Errorf("stdout does not match %s:\n%s", how.stdout, tail(r.stdout))
	}
	checkStderr(t, r.stderr, how.stderr)
	if how.check != "" {
		if err := os.WriteFile(dir+"/.stdout", []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		shellIn(t, dir, env, "check", how.check)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", tail(r.stderr))
	}
}

// shellIn runs a script of the test's own (prep, check) in dir; it must
// exit 0.
func shellIn(t *testing.T, dir string, env []string, what, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", what, script, err, out)
	}
}

// tail is the end of a long output, for messages.
func tail(s string) string {
	const max = 4000
	if len(s) > max {
		return "…" + s[len(s)-max:]
	}
	return s
}

// checkStderr requires the lines of want in stderr, in that order, "…"
// in one standing for any text.
func checkStderr(t *testing.T, stderr string, want []string) {
	t.Helper()
	rest := stderr
	for _, line := range want {
		parts := strings.Split(line, "…")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		loc := regexp.MustCompile(strings.Join(parts, ".*")).FindStringIndex(rest)
		if loc == nil {
			t.Errorf("stderr lacks the line the document shows:\n%s\nstderr:\n%s", line, tail(stderr))
			return
		}
		rest = rest[loc[1]:]
	}
}
