package cdedupe

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/dedupe"
)

// TestDocsSayWhatIsStored: docs/cdedupe.md says how many bits of a key the
// seen-set stores (the width of dedupe.Key.Hash), and the odds of a
// collision that follow, rather than calling the set exact.
func TestDocsSayWhatIsStored(t *testing.T) {
	b, err := os.ReadFile("../../docs/cdedupe.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	bits := reflect.TypeFor[dedupe.Key]().Field(0).Type.Bits()
	if f := reflect.TypeFor[dedupe.Key]().Field(0); f.Name != "Hash" {
		t.Fatalf("dedupe.Key's first field is %s, not Hash", f.Name)
	}
	for _, want := range []string{
		fmt.Sprintf("a %d-bit hash", bits),
		fmt.Sprintf("n²/2^%d", bits+1),
	} {
		if !strings.Contains(strings.ReplaceAll(doc, "⁶⁵", "^65"), want) {
			t.Errorf("docs/cdedupe.md does not say %q", want)
		}
	}
	if strings.Contains(doc, "It is exact") {
		t.Error(`docs/cdedupe.md says "It is exact": it stores hashes`)
	}
}

// TestDocsWarnOfSeenBeforeRead: docs/cdedupe.md warns that a key is seen
// once its batch is checked, before anyone reads the record (the case
// seen_once_written_not_once_read shows it), and says what to do instead.
func TestDocsWarnOfSeenBeforeRead(t *testing.T) {
	b, err := os.ReadFile("../../docs/cdedupe.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{"## Seen once passed on, not once read", "cdedupe --db seen.db … | head", "--namespace try-1", "cqueue push"} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/cdedupe.md does not say %q", want)
		}
	}
}
