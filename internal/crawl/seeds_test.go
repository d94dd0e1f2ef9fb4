package crawl

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadSeeds: the seeds' identity is their non-blank lines, each once,
// in any order, without the byte order mark a Windows editor puts first;
// the account's lines are the non-blank lines, repeats counted.
func TestReadSeeds(t *testing.T) {
	const same = "http://a.test/\nhttp://b.test/\n"
	for _, tc := range []struct {
		name, text string
		lines      int
		sameSeeds  bool // the identity of `same`
	}{
		{"plain", same, 2, true},
		{"another order, CRLF, blank lines", "\r\nhttp://b.test/\r\n\r\nhttp://a.test/\r\n", 2, true},
		{"a byte order mark first", "\xef\xbb\xbf" + same, 2, true},
		{"a line twice", same + "http://a.test/\n", 3, true},
		{"another seed", same + "http://c.test/\n", 3, false},
		{"a byte order mark on a later line is data", same + "\xef\xbb\xbfhttp://a.test/\n", 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := readSeedsOf(t, same)
			c := readSeedsOf(t, tc.text)
			if c.seed.lines != tc.lines {
				t.Errorf("lines %d, want %d", c.seed.lines, tc.lines)
			}
			if got := c.id.seedsSHA == want.id.seedsSHA; got != tc.sameSeeds {
				t.Errorf("the same seeds as %q: %v, want %v", same, got, tc.sameSeeds)
			}
		})
	}
}

func readSeedsOf(t *testing.T, text string) *crawl {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	c := &crawl{}
	c.o.seeds = path
	if err := c.readSeeds(); err != nil {
		t.Fatal(err)
	}
	return c
}
