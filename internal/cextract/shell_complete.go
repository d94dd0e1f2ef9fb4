package cextract

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/net/html"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
)

// completer completes the word before the cursor on Tab: a command, a file
// name after :rules and :fetch, else a tag, .class or #id of the page.
type completer struct {
	s     *session
	page  *sample  // the page words was built from
	words []string // tags, .classes and #ids of the page, sorted
}

var shellCommands = []string{":explain", ":fetch ", ":help", ":page", ":quit", ":rules "}

func newCompleter(s *session) *completer { return &completer{s: s} }

// complete is the terminal's AutoCompleteCallback.
func (c *completer) complete(line string, pos int, key rune) (string, int, bool) {
	if key != '\t' {
		return "", 0, false
	}
	before := line[:pos]
	start := strings.LastIndexAny(before, " \t>+~,([") + 1
	word := before[start:]
	var cands []string
	switch {
	case start == 0 && strings.HasPrefix(word, ":"):
		cands = shellCommands
	case strings.HasPrefix(before, ":rules ") || strings.HasPrefix(before, ":fetch "):
		cands = fileNames(word)
	case start == 0 && !strings.HasPrefix(word, ":") || start > 0 && !strings.HasPrefix(before, ":"):
		cands = c.pageWords()
	}
	ext := commonPrefix(word, cands)
	if ext == "" {
		return "", 0, false
	}
	return before + ext + line[pos:], pos + len(ext), true
}

// commonPrefix is what every candidate starting with word adds to it.
func commonPrefix(word string, cands []string) string {
	var match []string
	for _, c := range cands {
		if strings.HasPrefix(c, word) && c != word {
			match = append(match, c)
		}
	}
	if len(match) == 0 {
		return ""
	}
	p := match[0]
	for _, m := range match[1:] {
		for !strings.HasPrefix(m, p) {
			p = p[:len(p)-1]
		}
	}
	return p[len(word):]
}

// fileNames are the files starting with word (directories end in /).
func fileNames(word string) []string {
	matches, _ := filepath.Glob(word + "*")
	for i, m := range matches {
		if st, err := os.Stat(m); err == nil && st.IsDir() {
			matches[i] = m + "/"
		}
	}
	return matches
}

// pageWords are the tags, .classes and #ids of an HTML page.
func (c *completer) pageWords() []string {
	if c.page == c.s.page {
		return c.words
	}
	c.page, c.words = c.s.page, nil
	if c.s.format != rules.HTML {
		return nil
	}
	doc := c.s.pg.html().Root
	seen := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			seen[n.Data] = true
			for _, a := range n.Attr {
				switch a.Key {
				case "class":
					for _, cl := range strings.Fields(a.Val) {
						seen["."+cl] = true
					}
				case "id":
					seen["#"+a.Val] = true
				}
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(doc)
	for w := range seen {
		c.words = append(c.words, w)
	}
	sort.Strings(c.words)
	return c.words
}
