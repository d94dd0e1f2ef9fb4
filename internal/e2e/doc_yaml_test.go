package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestDocYAMLExamples checks every ```yaml block of README.md and
// docs/*.md as what it shows:
//
//   - a config file (its keys are commands: cfetch:, cqueue: …): every
//     command it has a section for, and every cqueue subcommand it has a
//     section for (else cqueue info), starts with it as --config and
//     reports no error about it;
//   - a rules file: cextract --check passes it. A block written with
//     placeholders (`{...}`, `[...]`) is a summary of the syntax, not a
//     file: it must be YAML, and is not checked further;
//   - the rules of testdata/rules/demo.yml, which docs/rules.md shows: they
//     are that file's (its tests aside), so that a user copying them has
//     the rules the crawl of the demo shop is tested with;
//   - a comment naming the rules' JSON Schema: the file is there, for a
//     rules file one folder down from the repository's top.
func TestDocYAMLExamples(t *testing.T) {
	bin := binDir(t)
	blocks := fencedBlocks(t, "yaml", "yml")
	if len(blocks) < 10 {
		t.Fatalf("%d ```yaml blocks in the docs; want the rules and config examples", len(blocks))
	}
	for _, b := range blocks {
		t.Run(strings.ReplaceAll(b.String(), "/", "_"), func(t *testing.T) {
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(b.Body), &doc); err != nil {
				t.Fatalf("%s: not YAML: %v\n%s", b, err, b.Body)
			}
			switch {
			case len(doc) == 0:
				checkSchemaComment(t, b)
			case isConfig(doc):
				checkConfig(t, bin, b, doc)
			case strings.Contains(b.Body, "...}") || strings.Contains(b.Body, "[...]"):
				t.Logf("%s: a summary of the syntax, with placeholders", b)
			default:
				checkRules(t, bin, b)
				if doc["name"] == "demo" {
					sameRules(t, b, "../../testdata/rules/demo.yml")
				}
			}
		})
	}
}

// isConfig says whether a YAML document is a config file: sections named
// after the commands.
func isConfig(doc map[string]any) bool {
	for k := range doc {
		if !slices.Contains(tools, k) {
			return false
		}
	}
	return true
}

var schemaComment = regexp.MustCompile(`^# yaml-language-server: \$schema=(\S+)\n$`)

func checkSchemaComment(t *testing.T, b docBlock) {
	m := schemaComment.FindStringSubmatch(b.Body)
	if m == nil {
		t.Fatalf("%s: an empty YAML document, and not the schema's comment:\n%s", b, b.Body)
	}
	if _, err := os.Stat(filepath.Join("../../testdata", m[1])); err != nil {
		t.Errorf("%s: the schema of a rules file one folder down: %v", b, err)
	}
}

// checkConfig starts each command the config block has a section for with
// it, on no input, and requires that none reports an error about it.
func checkConfig(t *testing.T, bin string, b docBlock, doc map[string]any) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(config, []byte(b.Body), 0o644); err != nil {
		t.Fatal(err)
	}
	for tool, section := range doc {
		runs := [][]string{{tool}}
		if tool == "cqueue" {
			runs = nil
			m, _ := section.(map[string]any)
			for k, v := range m {
				if _, sub := v.(map[string]any); sub {
					runs = append(runs, []string{tool, k})
				}
			}
			if len(runs) == 0 {
				runs = [][]string{{tool, "info"}}
			}
		}
		for _, args := range runs {
			if tool == "cqueue" && args[1] == "pop" {
				args = append(args, "--max", "1") // no --follow from a config
			}
			cmd := exec.Command(filepath.Join(bin, args[0]), append(args[1:], "--config", config)...)
			cmd.Dir, cmd.Env = dir, exampleEnv(bin, dir)
			out, err := cmd.CombinedOutput()
			if strings.Contains(string(out), "config "+config) {
				t.Errorf("%s: %s --config: %s", b, strings.Join(args, " "), out)
			} else if tool != "cqueue" && err != nil {
				t.Errorf("%s: %s --config < /dev/null: %v\n%s", b, strings.Join(args, " "), err, out)
			}
		}
	}
}

// checkRules runs cextract --check on a rules block.
func checkRules(t *testing.T, bin string, b docBlock) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(file, []byte(b.Body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "cextract"), "--check", file)
	cmd.Env = exampleEnv(bin, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: cextract --check: %v\n%s\n%s", b, err, out, b.Body)
	}
}

// sameRules requires that a block has the rules of file, its tests aside.
func sameRules(t *testing.T, b docBlock, file string) {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var shown, real map[string]any
	if err := yaml.Unmarshal([]byte(b.Body), &shown); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(src, &real); err != nil {
		t.Fatal(err)
	}
	delete(real, "tests")
	if !reflect.DeepEqual(shown, real) {
		t.Errorf("%s shows the rules of %s, but they differ from the file's:\nshown: %v\nfile:  %v", b, file, shown, real)
	}
}
