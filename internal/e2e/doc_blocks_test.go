package e2e

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/docblocks"
)

// docBlock is one fenced block of a document.
type docBlock = docblocks.Block

// docs are README.md and docs/*.md, named from the repository's top.
func docs(t *testing.T) []string {
	t.Helper()
	names, err := docblocks.Docs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// fencedBlocks returns the fenced blocks of the documents, of the given
// languages (none: all).
func fencedBlocks(t *testing.T, langs ...string) []docBlock {
	t.Helper()
	blocks, err := docblocks.Read("../..", langs...)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// firstBlock returns the body of the first block of lang in doc
// ("docs/warc.md"), and fails the test when it has none.
func firstBlock(t *testing.T, doc, lang string) string {
	t.Helper()
	for _, b := range fencedBlocks(t, lang) {
		if b.Doc == doc {
			return b.Body
		}
	}
	t.Fatalf("%s has no ```%s block", doc, lang)
	return ""
}
