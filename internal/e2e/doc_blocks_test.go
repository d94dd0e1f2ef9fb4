package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docBlock is one fenced block of a document.
type docBlock struct {
	doc  string // "docs/rules.md"
	line int    // of its opening fence
	lang string // "yaml", "sh", "" …
	body string // its lines, the fence's indentation removed
}

func (b docBlock) String() string { return b.doc + ":" + strconv.Itoa(b.line) }

var fence = regexp.MustCompile("^( *)```(\\S*)\\s*$")

// docs are README.md and docs/*.md, named from the repository's top.
func docs(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(names) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{"../../README.md"}, names...)
}

// fencedBlocks returns the fenced blocks of the documents, of the given
// languages (none: all).
func fencedBlocks(t *testing.T, langs ...string) []docBlock {
	t.Helper()
	var blocks []docBlock
	for _, path := range docs(t) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		var cur *docBlock
		indent := 0
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			m := fence.FindStringSubmatch(line)
			switch {
			case cur == nil && m != nil:
				indent = len(m[1])
				cur = &docBlock{doc: strings.TrimPrefix(path, "../../"), line: n, lang: m[2]}
			case cur != nil && m != nil && m[2] == "":
				if len(langs) == 0 || slices.Contains(langs, cur.lang) {
					blocks = append(blocks, *cur)
				}
				cur = nil
			case cur != nil:
				if len(line) >= indent && strings.TrimSpace(line[:indent]) == "" {
					line = line[indent:]
				}
				cur.body += line + "\n"
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if cur != nil {
			t.Fatalf("%s: the block at line %d is not closed", path, cur.line)
		}
	}
	return blocks
}
