package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/crawlutils/crawlutils/"

// drivers are the database drivers, by import path prefix.
var drivers = []string{"modernc.org/sqlite", "github.com/redis/go-redis"}

// storeLayers are storage and the stores on it.
var storeLayers = []string{"internal/storage", "internal/frontier", "internal/dedupe", "internal/throttle", "internal/toolstats"}

// tools are the command shell and the tool packages.
var tools = []string{"internal/cli", "internal/cfetch", "internal/cextract", "internal/cexport", "internal/cdedupe",
	"internal/cthrottle", "internal/cqueue", "internal/monitor"}

// rules: a package (by path under the module) and what none of its
// dependencies, direct or not, may be (a path under the module, or a
// driver's prefix).
var rules = []struct {
	pkg    string
	forbid []string
	why    string
}{
	{"internal/cli", append(append([]string{}, storeLayers...), drivers...), "the command shell links no store and no driver"},
	{"internal/statspub", append(append([]string{}, storeLayers...), drivers...), "cli publishes through it"},
	{"internal/storage/storeurl", append(append([]string{}, storeLayers...), drivers...), "cli reads store names with it"},
	{"internal/cextract", append(append([]string{}, storeLayers...), drivers...), "cextract keeps no state"},
	{"cmd/cextract", append(append([]string{}, storeLayers...), drivers...), "cextract's --stats-to goes through cqueue stats-relay"},
	{"internal/storage", append(append([]string{}, tools...), storeLayers[1:]...), "storage is the bottom layer"},
	{"internal/frontier", tools, "a store imports no tool"},
	{"internal/dedupe", tools, "a store imports no tool"},
	{"internal/throttle", tools, "a store imports no tool"},
	{"internal/toolstats", tools, "a store imports no tool"},
	{"internal/warc", append(append(append([]string{}, tools...), storeLayers...), drivers...), "the WARC format is a record-layer package"},
}

// TestLayers fails when a package imports across the layers (see the
// package comment), from what go list says each one depends on.
func TestLayers(t *testing.T) {
	deps := goListDeps(t)
	for _, r := range rules {
		ds, ok := deps[mod+r.pkg]
		if !ok {
			t.Errorf("%s: no such package", r.pkg)
			continue
		}
		for _, d := range ds {
			for _, f := range r.forbid {
				if forbidden(d, f) {
					t.Errorf("%s depends on %s: %s", r.pkg, d, r.why)
				}
			}
		}
	}
}

// forbidden reports whether the dependency dep is the forbidden package f
// (a path under the module, or a driver's import path prefix) or under it.
func forbidden(dep, f string) bool {
	if !strings.Contains(f, ".") {
		f = mod + f
		return dep == f || strings.HasPrefix(dep, f+"/") && !strings.HasPrefix(dep, mod+"internal/storage/storeurl")
	}
	return strings.HasPrefix(dep, f)
}

// goListDeps is every package of the module with its dependencies (not
// its tests').
func goListDeps(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			deps[f[0]] = f[1:]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return deps
}
