package cexport

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// TestNotInHeaderReportsAreCapped: every item with a field the header
// lacks is counted, the first maxWarnings reported, then one line says the
// rest are only counted.
func TestNotInHeaderReportsAreCapped(t *testing.T) {
	t.Parallel()
	n := 3 * maxWarnings
	var in strings.Builder
	in.WriteString(`{"a":0}` + "\n")
	for i := range n {
		fmt.Fprintf(&in, `{"kind":"item","url":"https://x/%d","data":{"a":1,"b":2}}`+"\n", i)
	}
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"-f", "csv"}, strings.NewReader(in.String()), &stdout, &stderr)
	if code != cli.ExitPartial {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, &stderr)
	}
	if got := strings.Count(stdout.String(), "\n"); got != n+2 {
		t.Errorf("%d lines written, want the header and %d rows", got, n+1)
	}
	errs := stderr.String()
	if got := strings.Count(errs, `field "b" is not in the header`); got != maxWarnings {
		t.Errorf("%d items reported, want %d:\n%s", got, maxWarnings, errs)
	}
	for _, want := range []string{
		"cexport: <stdin>:2: item https://x/0: field \"b\"",
		"cexport: more items with fields not in the header: not reporting them any more (counted: errors: not_in_header)\n",
		fmt.Sprintf("errors: not_in_header %d;", n),
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}
