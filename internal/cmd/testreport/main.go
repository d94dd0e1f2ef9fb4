// Command testreport reads the events of `go test -json` on standard input
// and prints what `go test` prints without -json — the output of each
// failing test, build errors, and each package's closing line ("ok  \tpkg\t1.2s",
// "FAIL\tpkg\t1.2s", "?   \tpkg\t[no test files]"), so that tools which read
// those lines still find them — and at the end the slowest packages with
// their times, and the packages that failed.
//
// Usage:
//
//	go test -json ./... | testreport [-slowest 10]
//
// It exits 1 when a test, a package or a build failed, or when the input
// ended before a package's result (go test was killed); 2 when the input
// cannot be read. A script should still check go test's own exit status
// (set -o pipefail): go test fails without events when, say, a pattern
// matches no package.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	slowest := flag.Int("slowest", 10, "how many of the slowest packages to list at the end; 0: none")
	flag.Parse()
	r := newReport(os.Stdout)
	if err := r.read(os.Stdin); err != nil {
		fmt.Fprintf(os.Stderr, "testreport: reading go test -json: %v\n", err)
		os.Exit(2)
	}
	r.summary(*slowest)
	if r.failed {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json), or of the build
// output go test interleaves with them (Action build-output, build-fail).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string
}

// line is one line of output, held until its test or package ends.
type line struct {
	test string // "" for the package's own output
	text string
}

// pkgTime is how long a package's tests took.
type pkgTime struct {
	pkg     string
	seconds float64
}

// report turns events into go test's usual output. Output is held per
// package until the test it belongs to ends: a passing test's is dropped,
// a failing one's printed at once, as go test (without -v) does.
type report struct {
	out      io.Writer
	held     map[string][]line // package → its lines not yet printed or dropped, in order
	order    []string          // packages in the order they started, for the unfinished ones at EOF
	times    []pkgTime
	failures []string // packages that failed, in order
	failed   bool
}

func newReport(out io.Writer) *report {
	return &report{out: out, held: map[string][]line{}}
}

// read handles every event of in. A line that is not an event is printed
// as it is.
func (r *report) read(in io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			var e event
			if b[0] != '{' || json.Unmarshal(b, &e) != nil || e.Action == "" {
				r.print(string(b))
			} else {
				r.event(e)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// framing reports whether text is one of the lines test2json's -v output
// adds around every test, which go test without -v does not print.
func framing(text string) bool {
	for _, p := range []string{"=== RUN ", "=== PAUSE ", "=== CONT ", "=== NAME "} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// within reports whether test is name or one of its subtests.
func within(test, name string) bool {
	return test == name || strings.HasPrefix(test, name+"/")
}

func (r *report) event(e event) {
	switch e.Action {
	case "build-output":
		r.print(e.Output)
		return
	case "build-fail":
		r.failed = true
		return
	}
	if e.Package == "" {
		r.print(e.Output)
		return
	}
	if _, ok := r.held[e.Package]; !ok {
		r.held[e.Package] = nil
		r.order = append(r.order, e.Package)
	}
	switch e.Action {
	case "output":
		if !framing(e.Output) {
			r.held[e.Package] = append(r.held[e.Package], line{e.Test, e.Output})
		}
	case "pass", "skip", "fail":
		if e.Test != "" {
			r.testEnd(e)
		} else {
			r.packageEnd(e)
		}
	}
}

// testEnd drops a passed or skipped test's output, with its subtests'.
// A failed top-level test's output is printed with that of its failed
// subtests (a subtest's failure waits for its parent's, which follows).
func (r *report) testEnd(e event) {
	if e.Action == "fail" && strings.Contains(e.Test, "/") {
		return
	}
	lines := r.held[e.Package]
	var mine []line
	keep := lines[:0]
	for _, l := range lines {
		if within(l.test, e.Test) {
			mine = append(mine, l)
		} else {
			keep = append(keep, l)
		}
	}
	clear(lines[len(keep):])
	r.held[e.Package] = keep
	if e.Action == "fail" {
		r.printFailed(mine, e.Test, 0)
	}
}

// printFailed prints the output of a failed test as go test without -v
// does: its "--- FAIL" line first, then what it logged and its failed
// subtests, each indented one level deeper than its parent. (In the events
// a test's "--- FAIL" line comes after its output, and a subtest's lines
// are not indented.)
func (r *report) printFailed(lines []line, test string, depth int) {
	indent := strings.Repeat("    ", depth)
	for _, l := range lines {
		if l.test == test && strings.HasPrefix(l.text, "--- ") {
			r.print(indent + l.text)
		}
	}
	done := map[string]bool{}
	for _, l := range lines {
		switch {
		case l.test == test:
			if !strings.HasPrefix(l.text, "--- ") {
				r.print(indent + l.text)
			}
		case within(l.test, test):
			// l belongs to a subtest: the child of test it is within.
			child := test + "/" + strings.SplitN(strings.TrimPrefix(l.test, test+"/"), "/", 2)[0]
			if !done[child] {
				done[child] = true
				var sub []line
				for _, s := range lines {
					if within(s.test, child) {
						sub = append(sub, s)
					}
				}
				r.printFailed(sub, child, depth+1)
			}
		}
	}
}

// packageEnd prints a failed package's output not printed yet (a test
// that never ended — a panic, a timeout — and the package's own lines), or
// only the closing line of one that passed.
func (r *report) packageEnd(e event) {
	for _, l := range r.held[e.Package] {
		if e.Action == "fail" || l.test == "" && closing(l.text) {
			r.print(l.text)
		}
	}
	delete(r.held, e.Package)
	if e.Action == "fail" {
		r.failed = true
		r.failures = append(r.failures, e.Package)
	}
	if e.Action != "skip" {
		r.times = append(r.times, pkgTime{e.Package, e.Elapsed})
	}
}

// closing reports whether text is the line go test ends a passing or
// skipped package with.
func closing(text string) bool {
	return strings.HasPrefix(text, "ok  \t") || strings.HasPrefix(text, "?   \t")
}

func (r *report) print(text string) {
	if text == "" {
		return
	}
	io.WriteString(r.out, text)
	if !strings.HasSuffix(text, "\n") {
		io.WriteString(r.out, "\n")
	}
}

// summary prints what the input left unfinished, the n slowest packages
// and the failed ones.
func (r *report) summary(n int) {
	for _, pkg := range r.order {
		lines, ok := r.held[pkg]
		if !ok {
			continue
		}
		r.failed = true
		r.failures = append(r.failures, pkg)
		fmt.Fprintf(r.out, "testreport: the input ended before the result of %s; its output so far:\n", pkg)
		for _, l := range lines {
			r.print(l.text)
		}
	}
	if n > 0 && len(r.times) > 0 {
		times := slices.Clone(r.times)
		slices.SortStableFunc(times, func(a, b pkgTime) int { return cmp.Compare(b.seconds, a.seconds) })
		times = times[:min(n, len(times))]
		fmt.Fprintf(r.out, "\n%d slowest packages:\n", len(times))
		for _, t := range times {
			fmt.Fprintf(r.out, "%8.1fs  %s\n", t.seconds, t.pkg)
		}
	}
	if len(r.failures) > 0 {
		fmt.Fprintf(r.out, "\nFAIL: %d packages: %s\n", len(r.failures), strings.Join(r.failures, " "))
	}
}
