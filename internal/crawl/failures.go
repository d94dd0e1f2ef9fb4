package crawl

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// shownFailures is how many failed pages the account names; the rest are
// counted (and all are in --failures FILE).
const shownFailures = 5

// failuresPath is the file cextract writes the crawl's failed pages to:
// --failures FILE, else one of the run's own.
func (c *crawl) failuresPath() string {
	if c.o.failures != "" {
		return c.o.failures
	}
	return filepath.Join(c.tmp, "failures.jsonl")
}

// failuresAppend reports whether cextract adds to --failures FILE rather
// than writing it anew: when this run resumes a round (after Ctrl-C, a
// budget, a crash), so that the file keeps the whole round's failed pages,
// those of the runs before too. It notes where this run's begin.
func (c *crawl) failuresAppend() bool {
	if c.o.failures == "" || !c.resumes {
		return false
	}
	if fi, err := os.Stat(c.o.failures); err == nil && fi.Mode().IsRegular() {
		c.failuresFrom = fi.Size()
	}
	return true
}

// failuresAccount is what the account says of the pages that failed or
// whose items were dropped (cextract --failures): how many, the first few,
// and the file that has them all when --failures FILE was given.
type failuresAccount struct {
	Count int64             `json:"count"`
	File  string            `json:"file,omitempty"`
	First []json.RawMessage `json:"first"`
	// Earlier is how many of the file's records the round's earlier
	// runs wrote (failuresAppend): not counted in Count.
	Earlier int64 `json:"earlier_runs,omitempty"`
}

// readFailures reads the failed pages cextract wrote: nil when it wrote
// none (or no file: the loop did not start).
func (c *crawl) readFailures() *failuresAccount {
	f, err := os.Open(c.failuresPath())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.tool.Printf("warning: failed pages: %v", err)
		}
		return nil
	}
	defer f.Close()
	a := &failuresAccount{File: c.o.failures, First: []json.RawMessage{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var at int64 // the offset of the line after this one
	for sc.Scan() {
		line := sc.Bytes()
		at += int64(len(line)) + 1
		if len(line) == 0 || !json.Valid(line) {
			continue
		}
		if at <= c.failuresFrom {
			a.Earlier++
			continue
		}
		a.Count++
		if len(a.First) < shownFailures {
			a.First = append(a.First, json.RawMessage(append([]byte(nil), line...)))
		}
	}
	if err := sc.Err(); err != nil {
		c.tool.Printf("warning: failed pages: %v", err)
	}
	if a.Count == 0 && a.Earlier == 0 {
		return nil
	}
	return a
}

// failureLines are the account's lines naming the failed pages: the first
// few, each with why and the page that linked it, then how many more.
func (c *crawl) failureLines(a *failuresAccount) []string {
	if a == nil || a.Count == 0 {
		return nil
	}
	head := fmt.Sprintf("%s failed or had items dropped:", plural(a.Count, "page"))
	switch {
	case a.File != "" && a.Earlier > 0:
		head = fmt.Sprintf("%s failed or had items dropped (every one in %s, after the %d of the round's earlier runs):", plural(a.Count, "page"), a.File, a.Earlier)
	case a.File != "":
		head = fmt.Sprintf("%s failed or had items dropped (every one in %s):", plural(a.Count, "page"), a.File)
	}
	lines := []string{head}
	for _, raw := range a.First {
		lines = append(lines, "  "+describeFailure(raw))
	}
	if rest := a.Count - int64(len(a.First)); rest > 0 {
		more := fmt.Sprintf("  … and %d more", rest)
		if a.File == "" {
			more += " (cqueue crawl --failures FILE keeps every one, with its referer)"
		}
		lines = append(lines, more)
	}
	return lines
}

// describeFailure is one failed page for the account: "URL: 404, linked
// from REFERER".
func describeFailure(raw json.RawMessage) string {
	var f struct {
		URL, Error, Reason, Rule, Referer string
		ErrorDetail                       string `json:"error_detail"`
		RequestURL                        string `json:"request_url"`
		Status                            int
		Fields                            []string
	}
	json.Unmarshal(raw, &f)
	var why string
	switch {
	case f.Error != "" && f.ErrorDetail != "":
		why = fmt.Sprintf("%s (%s)", f.Error, f.ErrorDetail)
	case f.Error != "":
		why = f.Error
	case f.Reason == "missing_field":
		why = fmt.Sprintf("items of rule %q dropped: required %s missing", f.Rule, pluralWord(len(f.Fields), "field")+" "+strings.Join(f.Fields, ", "))
	case f.Status != 0:
		why = fmt.Sprintf("%d", f.Status)
	default:
		why = f.Reason
	}
	s := f.URL + ": " + why
	if f.RequestURL != "" {
		s += ", requested as " + f.RequestURL
	}
	if f.Referer != "" {
		s += ", linked from " + f.Referer
	}
	return s
}

func pluralWord(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
