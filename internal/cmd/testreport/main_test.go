package main

import (
	"os"
	"strings"
	"testing"
)

// report runs the report on input and returns its output.
func runReport(t *testing.T, input string, slowest int) (string, bool) {
	t.Helper()
	var out strings.Builder
	r := newReport(&out)
	if err := r.read(strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	r.summary(slowest)
	return out.String(), r.failed
}

// testdata/events.jsonl is `go test -json ./...` on five packages: a with a
// failing test (passing, failing, nested and skipped subtests), b passing,
// c not building, d panicking, e without tests.
func TestFailuresPrintedAsGoTestPrintsThem(t *testing.T) {
	events, err := os.ReadFile("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, failed := runReport(t, string(events), 10)
	if !failed {
		t.Error("failed = false, want true")
	}
	for _, want := range []string{
		// The failing test as go test prints it without -v: the --- FAIL
		// line first, subtests nested under their parent, passing and
		// skipped subtests left out.
		"--- FAIL: TestFail (0.00s)\n" +
			"    a_test.go:7: a log line\n" +
			"    --- FAIL: TestFail/sub2 (0.00s)\n" +
			"        --- FAIL: TestFail/sub2/deep (0.00s)\n" +
			"            a_test.go:10: deep broke\n" +
			"        a_test.go:11: sub2 broke\n" +
			"FAIL\n" +
			"FAIL\ttj/a\t0.005s\n",
		// Every package's closing line.
		"ok  \ttj/b\t(cached)\n",
		"# tj/c [tj/c.test]\nc/c_test.go:5:32: undefined: undefined\n",
		"FAIL\ttj/c [build failed]\n",
		"?   \ttj/e\t[no test files]\n",
		// A panic's whole trace.
		"--- FAIL: TestPanic (0.00s)\nbefore\npanic: assignment to entry in nil map",
		"\t/tmp/tj/d/d_test.go:5 +0x65\n",
		"FAIL\ttj/d\t0.010s\n",
		"\n4 slowest packages:\n",
		"\nFAIL: 3 packages: tj/c tj/a tj/d\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s\n--- output:\n%s", want, out)
		}
	}
	for _, not := range []string{"quiet", "passing sub logs", "not today", "=== RUN", "--- PASS", "PASS\n"} {
		if strings.Contains(out, not) {
			t.Errorf("output has %q, which go test without -v does not print:\n%s", not, out)
		}
	}
}

func TestSlowestPackagesSorted(t *testing.T) {
	input := `{"Action":"output","Package":"p/fast","Output":"ok  \tp/fast\t0.1s\n"}
{"Action":"pass","Package":"p/fast","Elapsed":0.1}
{"Action":"output","Package":"p/slow","Output":"ok  \tp/slow\t92.5s\n"}
{"Action":"pass","Package":"p/slow","Elapsed":92.5}
{"Action":"output","Package":"p/mid","Output":"FAIL\tp/mid\t3.0s\n"}
{"Action":"fail","Package":"p/mid","Elapsed":3}
{"Action":"output","Package":"p/none","Output":"?   \tp/none\t[no test files]\n"}
{"Action":"skip","Package":"p/none","Elapsed":0}
`
	out, failed := runReport(t, input, 2)
	want := "ok  \tp/fast\t0.1s\nok  \tp/slow\t92.5s\nFAIL\tp/mid\t3.0s\n?   \tp/none\t[no test files]\n" +
		"\n2 slowest packages:\n    92.5s  p/slow\n     3.0s  p/mid\n" +
		"\nFAIL: 1 packages: p/mid\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if !failed {
		t.Error("failed = false, want true")
	}
	if out, failed := runReport(t, input[:strings.Index(input, `{"Action":"output","Package":"p/mid"`)], 0); failed || strings.Contains(out, "slowest") {
		t.Errorf("passing packages, no listing: failed = %v, output\n%s", failed, out)
	}
}

// TestInputEndsMidPackage: when go test dies (killed, out of memory) its
// unfinished packages' output is printed and the report fails.
func TestInputEndsMidPackage(t *testing.T) {
	input := `{"Action":"start","Package":"p/a"}
{"Action":"output","Package":"p/a","Test":"TestLong","Output":"=== RUN   TestLong\n"}
{"Action":"output","Package":"p/a","Test":"TestLong","Output":"    a_test.go:9: step 1\n"}
not json: printed as it is
`
	out, failed := runReport(t, input, 10)
	if !failed {
		t.Error("failed = false, want true")
	}
	for _, want := range []string{"not json: printed as it is\n", "the input ended before the result of p/a", "    a_test.go:9: step 1\n", "FAIL: 1 packages: p/a"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
