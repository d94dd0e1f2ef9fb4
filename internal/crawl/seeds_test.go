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
		{"comments", "# nightly\n" + same + "  # http://c.test/ later\n", 2, true},
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

// TestSeedsSummedWithTheirComments: a crawl started by a run that counted
// a seeds file's "#" lines as seeds (before they were skipped) has the
// same seeds: no conflict, and its stored sum is to be replaced.
func TestSeedsSummedWithTheirComments(t *testing.T) {
	c := readSeedsOf(t, "# nightly\nhttp://a.test/\n")
	plain := readSeedsOf(t, "http://a.test/\n")
	if c.id.seedsSHA != plain.id.seedsSHA || c.id.seedsSHAOld == c.id.seedsSHA {
		t.Fatalf("sums: %s, old %s; the seed alone %s", c.id.seedsSHA, c.id.seedsSHAOld, plain.id.seedsSHA)
	}
	before := map[string]string{"seeds_sha256": c.id.seedsSHAOld, "seeds_count": "2"}
	if got := c.id.conflicts("items", before); len(got) != 0 {
		t.Errorf("a crawl summed with its comments: %v", got)
	}
	if !c.id.oldSeedsSum(before) || c.id.oldSeedsSum(map[string]string{"seeds_sha256": c.id.seedsSHA}) {
		t.Error("oldSeedsSum")
	}
	if plain.id.oldSeedsSum(map[string]string{"seeds_sha256": plain.id.seedsSHA}) {
		t.Error("oldSeedsSum of seeds without comments")
	}
	other := map[string]string{"seeds_sha256": readSeedsOf(t, "http://b.test/\n").id.seedsSHA}
	if len(c.id.conflicts("items", other)) != 1 {
		t.Error("other seeds: no conflict")
	}
}
