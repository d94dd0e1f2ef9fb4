package cextract

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
)

// fastParseAgrees fails t when htmlparse.Fast gives a tree x/net/html
// would not, and reports whether Fast took body.
func fastParseAgrees(t *testing.T, body string) bool {
	fast := htmlparse.Fast(body)
	if fast == nil {
		return false
	}
	slow, err := htmlparse.Standard(body)
	if err != nil {
		t.Fatalf("htmlparse.Fast accepted what x/net/html refuses: %v", err)
	}
	if d := htmlparse.Diff(fast, slow); d != "" {
		t.Fatalf("trees differ at %s\ninput %.2000q", d, body)
	}
	return true
}

// TestDemoPagesTakeTheFastParser: every stored demo page, and the
// benchmark's product page, is in the fast HTML parser's subset and gives
// x/net/html's tree (a generated shop should never pay for the slow path).
func TestDemoPagesTakeTheFastParser(t *testing.T) {
	// Every stored demo page is in the subset, and gives the same tree.
	f, err := os.Open(demoResponsesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	pages, fast := 0, 0
	for sc.Scan() {
		var r struct{ Body, URL string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Body, "<html") {
			continue
		}
		pages++
		if fastParseAgrees(t, r.Body) {
			fast++
		}
	}
	if fast != pages {
		t.Errorf("htmlparse.Fast took %d of %d demo pages", fast, pages)
	}
	if !fastParseAgrees(t, productPage()) {
		t.Error("htmlparse.Fast refused the benchmark's product page")
	}
}
