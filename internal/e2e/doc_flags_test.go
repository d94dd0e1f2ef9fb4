package e2e

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/docblocks"
)

var (
	helpFlag   = regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z0-9][a-z0-9-]*)`)
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	invocation = regexp.MustCompile(`(?:^|[\s(|;&$'"])(cfetch|cextract|cexport|cdedupe|cthrottle|cqueue)((?:\s+[^|;&()<>\s]+)*)`)
	passFlags  = map[string]string{"--cfetch": "cfetch", "--cextract": "cextract", "--cexport": "cexport", "--cthrottle": "cthrottle", "--pop": "cqueue pop", "--push": "cqueue push"}
)

// misspelt are flags the docs misspell on purpose, to show the error.
var misspelt = map[string]bool{"--concurency": true}

// TestDocFlagsExist: every flag a document gives a command, in its code
// (```blocks and `spans` alike: what a user copies), is a flag of that
// command, as its --help lists them; a cqueue subcommand's, of the
// subcommand; those cqueue crawl passes on (--cfetch '…'), of the command
// they are passed to. A renamed or mistyped flag in the docs fails here.
func TestDocFlagsExist(t *testing.T) {
	bin := binDir(t)
	texts := helpTexts(t, bin)
	flags := map[string]map[string]bool{}
	for name, text := range texts {
		flags[name] = map[string]bool{"--help": true, "--version": true}
		for _, m := range helpFlag.FindAllStringSubmatch(text, -1) {
			flags[name][m[1]] = true
		}
	}
	checked := 0
	for _, path := range docs(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc := strings.TrimPrefix(path, "../../")
		lines := strings.Split(string(src), "\n")
		inBlock, session := false, false
		for i, line := range lines {
			var code []string
			switch {
			case docblocks.IsFence(line):
				inBlock = !inBlock
				session = false
				for j := i + 1; inBlock && j < len(lines) && !docblocks.IsFence(lines[j]); j++ {
					session = session || strings.HasPrefix(strings.TrimSpace(lines[j]), "$ ")
				}
			case inBlock && (!session || strings.HasPrefix(strings.TrimSpace(line), "$ ")):
				code = []string{line}
			case !inBlock:
				for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
					code = append(code, m[1])
				}
			}
			for _, c := range code {
				for _, m := range invocation.FindAllStringSubmatch(c, -1) {
					checked += checkFlags(t, flags, doc, i+1, m[1], shellWords(m[2]))
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("%d flags checked in the docs; want the many they give", checked)
	}
}

// checkFlags checks the flags of one invocation of tool; it returns how
// many it checked.
func checkFlags(t *testing.T, flags map[string]map[string]bool, doc string, line int, tool string, args []string) int {
	t.Helper()
	name := tool
	if tool == "cqueue" && len(args) > 0 && flags["cqueue "+args[0]] != nil {
		name, args = "cqueue "+args[0], args[1:]
	}
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || len(a) == 2 || strings.ContainsAny(a, "…*[") {
			continue
		}
		f, _, _ := strings.Cut(a, "=")
		n++
		if !flags[name][f] && !misspelt[f] {
			t.Errorf("%s:%d: %s %s: no such flag (%s --help lists %s)", doc, line, name, f, name, strings.Join(slices.Sorted(maps.Keys(flags[name])), " "))
			continue
		}
		if to, ok := passFlags[f]; ok && name == "cqueue crawl" && i+1 < len(args) {
			i++
			parts := strings.Fields(args[i])
			if strings.HasPrefix(to, "cqueue ") {
				n += checkFlags(t, flags, doc, line, "cqueue", append([]string{strings.TrimPrefix(to, "cqueue ")}, parts...))
			} else {
				n += checkFlags(t, flags, doc, line, to, parts)
			}
		}
	}
	return n
}

// shellWords splits s into words as a shell would, roughly: quotes
// group, and are removed.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
