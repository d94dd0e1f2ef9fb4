package docblocks

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	doc := "# Title\n\n## GET /x\n\n```json\n{\"a\":1}\n```\n\n- a list:\n\n  ```sh\n  echo hi\n    indented\n  ```\n\n```\nplain\n```\n"
	blocks, err := Parse("d.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Doc: "d.md", Line: 5, Lang: "json", Body: "{\"a\":1}\n", Heading: "## GET /x"},
		{Doc: "d.md", Line: 11, Lang: "sh", Body: "echo hi\n  indented\n", Heading: "## GET /x"},
		{Doc: "d.md", Line: 16, Lang: "", Body: "plain\n", Heading: "## GET /x"},
	}
	if len(blocks) != len(want) {
		t.Fatalf("%d blocks: %+v", len(blocks), blocks)
	}
	for i := range want {
		if blocks[i] != want[i] {
			t.Errorf("block %d: %+v, want %+v", i, blocks[i], want[i])
		}
	}
	if blocks[0].String() != "d.md:5" {
		t.Errorf("String() = %s", blocks[0])
	}
	if _, err := Parse("d.md", []byte("```sh\necho\n")); err == nil || !strings.Contains(err.Error(), "line 1 is not closed") {
		t.Errorf("an unclosed block: %v", err)
	}
}

// TestReadTheProjectsDocs: the documents have blocks, each named after
// its document and the line of its fence.
func TestReadTheProjectsDocs(t *testing.T) {
	blocks, err := Read("../..", "console")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("no console blocks in README.md and docs/*.md")
	}
	for _, b := range blocks {
		if b.Lang != "console" || !strings.HasSuffix(b.Doc, ".md") || strings.HasPrefix(b.Doc, "..") || b.Line < 1 {
			t.Errorf("%+v", b)
		}
	}
}

// FuzzParse: a document gives its blocks or an unclosed one's error, and
// each block starts at a fence line whose info string is its Lang.
func FuzzParse(f *testing.F) {
	f.Add("```sh\necho\n```\n")
	f.Add("# h\n  ```yaml\n  a: 1\n ```\n```\n")
	f.Add("```\n```x\n```\n")
	f.Fuzz(func(t *testing.T, doc string) {
		blocks, err := Parse("d.md", []byte(doc))
		if err != nil {
			return
		}
		lines := strings.Split(doc, "\n")
		for _, b := range blocks {
			if b.Line < 1 || b.Line > len(lines) {
				t.Fatalf("block at line %d of %d", b.Line, len(lines))
			}
			m := fence.FindStringSubmatch(lines[b.Line-1])
			if m == nil || m[2] != b.Lang {
				t.Fatalf("line %d %q is no fence of %q", b.Line, lines[b.Line-1], b.Lang)
			}
		}
	})
}
