// Package docblocks reads the fenced code blocks of the project's
// documents (README.md and docs/*.md), for the tests that run or check
// every example a user can read: one reading of a fence for all of them.
package docblocks

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Block is one fenced block of a document.
type Block struct {
	Doc     string // the document, named from the repository's top: "docs/rules.md"
	Line    int    // the line of its opening fence
	Lang    string // the fence's info string: "yaml", "sh", "" …
	Body    string // its lines, the fence's indentation removed
	Heading string // the last Markdown heading before it ("### GET /api/v1/"), "" if none
}

func (b Block) String() string { return b.Doc + ":" + strconv.Itoa(b.Line) }

var fence = regexp.MustCompile("^( *)```(\\S*)\\s*$")

// Docs returns README.md and docs/*.md of the repository whose top is top.
func Docs(top string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(top, "docs", "*.md"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("no docs/*.md under %s: %v", top, err)
	}
	return append([]string{filepath.Join(top, "README.md")}, names...), nil
}

// Read returns the fenced blocks of the documents of the repository whose
// top is top (Docs), of the given languages (none: all), in order.
func Read(top string, langs ...string) ([]Block, error) {
	docs, err := Docs(top)
	if err != nil {
		return nil, err
	}
	var out []Block
	for _, path := range docs {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(top, path)
		if err != nil {
			rel = path
		}
		blocks, err := Parse(filepath.ToSlash(rel), src)
		if err != nil {
			return nil, err
		}
		for _, b := range blocks {
			if len(langs) == 0 || slices.Contains(langs, b.Lang) {
				out = append(out, b)
			}
		}
	}
	return out, nil
}

// Parse returns the fenced blocks of the document src, named doc. A fence
// may be indented (a block in a list item); the closing fence has no info
// string.
func Parse(doc string, src []byte) ([]Block, error) {
	var out []Block
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	var cur *Block
	indent := 0
	heading := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		m := fence.FindStringSubmatch(line)
		switch {
		case cur == nil && m != nil:
			indent = len(m[1])
			cur = &Block{Doc: doc, Line: n, Lang: m[2], Heading: heading}
		case cur != nil && m != nil && m[2] == "":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			if len(line) >= indent && strings.TrimSpace(line[:indent]) == "" {
				line = line[indent:]
			}
			cur.Body += line + "\n"
		case strings.HasPrefix(line, "#"):
			heading = line
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", doc, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s: the block at line %d is not closed", doc, cur.Line)
	}
	return out, nil
}

// IsFence reports whether line opens or closes a fenced block.
func IsFence(line string) bool { return fence.MatchString(line) }
