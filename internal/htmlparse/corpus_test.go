package htmlparse

import (
	"bufio"
	"os"
	"testing"
	"unicode/utf8"
)

// A corpus of pages Fast was not written for: HTMLPARSE_CORPUS names a
// file listing HTML files, one path a line (say, `find / -name '*.html'`
// on a machine with documentation installed). TestCorpus says how many
// take the fast path and checks their trees; BenchmarkCorpus times Parse
// and x/net/html over them all.

func corpusPages(tb testing.TB) (paths, pages []string) {
	list := os.Getenv("HTMLPARSE_CORPUS")
	if list == "" {
		tb.Skip("HTMLPARSE_CORPUS names no list of HTML files")
	}
	f, err := os.Open(list)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		b, err := os.ReadFile(sc.Text())
		if err != nil || !utf8.Valid(b) {
			continue
		}
		paths, pages = append(paths, sc.Text()), append(pages, string(b))
	}
	return paths, pages
}

func TestCorpus(t *testing.T) {
	paths, pages := corpusPages(t)
	fast := 0
	for i, p := range pages {
		if checkFastParse(t, p) {
			fast++
		} else if testing.Verbose() {
			t.Logf("not fast: %s", paths[i])
		}
	}
	t.Logf("%d of %d pages took the fast path", fast, len(pages))
}

func BenchmarkCorpus(b *testing.B) {
	_, pages := corpusPages(b)
	size := 0
	for _, p := range pages {
		size += len(p)
	}
	for _, c := range []struct {
		name  string
		parse func(string)
	}{
		{"Parse", func(s string) { Parse(s) }},
		{"XNetHTML", func(s string) { _, _ = Standard(s) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, p := range pages {
					c.parse(p)
				}
			}
		})
	}
}
