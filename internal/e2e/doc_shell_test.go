package e2e

import (
	"fmt"
	"maps"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

// docFilesScript makes the files the documents' examples name beyond
// those of the --help examples (exampleFilesScript), as a user would
// have them.
const docFilesScript = `set -e
cp one-response.ndjson one-response.jsonl
cp shop.yml new-shop.yml
cp items.jsonl tonight.jsonl
printf '%s\n' "$SITE/media/19.jpg" > media-urls.txt
`

// docExample is one example of a document's ```sh block: a paragraph (its
// lines run in order, in one shell), or in a block that shows a session,
// one "$ command" and the messages it writes.
type docExample struct {
	helpExample
	where   string   // "docs/cfetch.md:28"
	session bool     // a "$ command" of a session
	shown   []string // what the session shows it write (on stderr: the messages)
}

// docSites are the sites the documents' examples crawl, other than
// example.com (rewriteExample's): the demo site stands in for them.
var docSites = regexp.MustCompile(`https?://(?:books\.toscrape\.com|books\.example|shop\.example)`)

// TestDocShellExamples runs every ```sh and ```bash block of README.md and
// docs/*.md, and every plain ``` block showing a session, as TestHelpExamples runs the --help examples (the same
// rewrites, servers, files and checks): each paragraph of a block is an
// example, its lines run in one shell; in a block showing a session
// ("$ command" lines, each followed by what it writes), each command is
// one, and what the block shows must be on its stderr (the session's
// lines are error messages; ```console blocks, whose output is stdout,
// are TestREADMEExamples'). docExampleRuns says how an example runs
// otherwise, or why it cannot run here.
func TestDocShellExamples(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	var all []docExample
	for _, b := range fencedBlocks(t, "sh", "bash", "") {
		if b.Lang == "" && !strings.HasPrefix(b.Body, "$ ") {
			continue // a synopsis, or what a command writes
		}
		all = append(all, docExamples(b)...)
	}
	shown := map[string]bool{}
	for _, ex := range all {
		shown[ex.text] = true
	}
	for _, text := range slices.Sorted(maps.Keys(docExampleRuns)) {
		if !shown[text] {
			t.Errorf("docExampleRuns has an entry for %q, which no document shows (any more)", text)
		}
	}
	bin := binDir(t)
	srv := httptest.NewServer(demosite.New(demosite.Options{Products: 60}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	files := makeExampleFiles(t, bin, srv.URL)
	cmd := exec.Command("bash", "-c", docFilesScript)
	cmd.Dir, cmd.Env = files, append(exampleEnv(bin, files), "SITE="+srv.URL)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making the documents' files: %v\n%s", err, out)
	}
	s := exampleSetup{bin: bin, site: srv.URL, sitePort: u.Port(), files: files}
	for _, ex := range all {
		how, ok := docExampleRuns[ex.text]
		if !ok && ex.session {
			how = exampleRun{fails: true, out: noOutput}
		}
		if !ok && !ex.session {
			how.out = crawlOutputs(ex.cmds)
		}
		if ex.session && how.stderr == nil {
			how.stderr = ex.shown
		}
		t.Run(strings.ReplaceAll(ex.where, "/", "_"), func(t *testing.T) {
			if how.skip != "" {
				t.Skipf("%s: %s", ex.text, how.skip)
			}
			t.Parallel()
			ex.helpExample.text = docSites.ReplaceAllLiteralString(ex.text, srv.URL)
			s.run(t, ex.helpExample, how)
		})
	}
}

// docExamples splits a block into its examples.
func docExamples(b docBlock) []docExample {
	lines := strings.Split(strings.TrimSuffix(b.Body, "\n"), "\n")
	var out []docExample
	if strings.HasPrefix(lines[0], "$ ") {
		for i, line := range lines {
			c, ok := strings.CutPrefix(line, "$ ")
			if !ok {
				out[len(out)-1].shown = append(out[len(out)-1].shown, line)
				continue
			}
			c = uncomment(c)
			out = append(out, docExample{
				helpExample: newExample(b.Doc, []string{c}),
				where:       fmt.Sprintf("%s:%d", b.Doc, b.Line+1+i),
				session:     true,
			})
		}
		return out
	}
	n := b.Line + 1
	for _, para := range paragraphs(lines) {
		for lines[n-b.Line-1] != para[0] {
			n++
		}
		out = append(out, docExample{helpExample: newExample(b.Doc, joinContinued(para)), where: fmt.Sprintf("%s:%d", b.Doc, n)})
	}
	return out
}

var crawlOut = regexp.MustCompile(`cqueue crawl(?:\s+--\S+(?:\s+[^-\s]\S*)?)*\s+([^-\s]\S*)\s+([^-\s]\S*)\s+('[^']*'|[^-\s]\S*)`)

// crawlOutputs are the outputs of an example's lines, as outputs finds
// them, and the OUT of a cqueue crawl SEEDS RULES OUT (the file of an
// SQLite URI): nil when there are none of the latter, for outputs to find
// them all.
func crawlOutputs(cmds []string) []string {
	var crawls []string
	for _, c := range cmds {
		for _, m := range crawlOut.FindAllStringSubmatch(uncomment(c), -1) {
			f := strings.Trim(m[3], "'")
			if rest, ok := strings.CutPrefix(f, "sqlite:"); ok {
				f, _, _ = strings.Cut(rest, "?")
			}
			if f != "-" {
				crawls = append(crawls, f)
			}
		}
	}
	if crawls == nil {
		return nil
	}
	return append(outputs(helpExample{cmds: cmds}), crawls...)
}
