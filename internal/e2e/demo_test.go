package e2e

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoScript runs the README's main command, scripts/demo.sh, as a user
// would, and checks every field of every row of out/products.csv against
// the demo site's ground truth.
func TestDemoScript(t *testing.T) {
	if testing.Short() {
		t.Skip("the full demo crawl is skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", "../../scripts/demo.sh")
	cmd.Env = append(os.Environ(), "OUT="+out, "BIN="+t.TempDir())
	output, err := cmd.CombinedOutput()
	t.Logf("scripts/demo.sh:\n%s", output)
	if err != nil {
		t.Fatalf("scripts/demo.sh failed: %v", err)
	}
	got := readCSV(t, filepath.Join(out, "products.csv"))
	want := readCSV(t, filepath.Join(out, "truth.csv"))
	if strings.Join(got.header, ",") != strings.Join(want.header, ",") {
		t.Fatalf("CSV header %v, want %v", got.header, want.header)
	}
	if len(want.rows) < 2000 {
		t.Fatalf("ground truth has only %d rows", len(want.rows))
	}
	bad := 0
	for url, w := range want.rows {
		g, ok := got.rows[url]
		if !ok {
			t.Errorf("missing product %s", url)
			bad++
		} else {
			for i, name := range want.header {
				if g[i] != w[i] {
					t.Errorf("%s: field %s = %q, want %q", url, name, g[i], w[i])
					bad++
				}
			}
		}
		if bad > 20 {
			t.Fatal("too many differences")
		}
	}
	for url := range got.rows {
		if _, ok := want.rows[url]; !ok {
			t.Errorf("exported a product that is not in the truth: %s", url)
		}
	}
	if got.dups > 0 {
		t.Errorf("%d products exported more than once", got.dups)
	}
	// The JavaScript shop, crawled with cfetch --render (Chromium is
	// installed where the integration tests run).
	needChromium(t)
	if !strings.Contains(string(output), "JavaScript-built products match the site's ground truth") {
		t.Error("scripts/demo.sh did not check the JavaScript shop")
	}
}

type table struct {
	header []string
	rows   map[string][]string // by the first column (url)
	dups   int
}

func readCSV(t *testing.T, path string) table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s is empty", path)
	}
	tb := table{header: recs[0], rows: map[string][]string{}}
	for _, r := range recs[1:] {
		if _, dup := tb.rows[r[0]]; dup {
			tb.dups++
		}
		tb.rows[r[0]] = r
	}
	return tb
}

// TestDemoScriptSaysItDownloads: on a machine that has never built
// crawlutils (no module in the cache), scripts/demo.sh says on stderr that
// it downloads the modules from the Go module proxy first, rather than
// stay silent for minutes. Here the proxy is off: it says so, then fails.
func TestDemoScriptSaysItDownloads(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cmd := exec.Command("bash", "../../scripts/demo.sh")
	cmd.Env = append(os.Environ(), "OUT="+t.TempDir(), "BIN="+t.TempDir(), "GOMODCACHE="+t.TempDir(), "GOPROXY=off")
	output, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("scripts/demo.sh built without modules or a proxy:\n%s", output)
	}
	if !strings.Contains(string(output), "demo: first build: downloading the Go modules crawlutils needs from the Go module proxy (off)") {
		t.Fatalf("scripts/demo.sh did not say it downloads modules:\n%s", output)
	}
}
