package cfetch

import (
	"regexp"
	"strings"
	"testing"
)

// goWords are what encoding/json and reflect say that a user of cfetch
// cannot act on: Go's type and field names.
var goWords = regexp.MustCompile(`Go struct|Go value|json: |unmarshal|record\.|\bmap\[|\[\]string|int64|float64|\bstruct\b`)

// TestInvalidRecordMessagesNameOurFields: a field of the wrong type is
// reported by its JSON name and JSON type, never in Go's words.
func TestInvalidRecordMessagesNameOurFields(t *testing.T) {
	t.Parallel()
	const u = `"url":"http://127.0.0.1:1/"`
	lines := []string{
		`{` + u + `,"redirects":{"a":1}}`,
		`{` + u + `,"redirects":[1]}`,
		`{` + u + `,"redirects":[{"url":1}]}`,
		`{` + u + `,"redirects":[{"url":"x","status":1.5}]}`,
		`{` + u + `,"headers":{"a":1}}`,
		`{` + u + `,"headers":[]}`,
		`{` + u + `,"priority":1e400}`,
		`{` + u + `,"depth":"1"}`,
		`{` + u + `,"allowed_domains":"a.test"}`,
		`{` + u + `,"deny_extensions":[1]}`,
		`{` + u + `,"dont_filter":"yes"}`,
		`{` + u + `,"expires":-1.5}`,
		`{` + u + `,"proxy":5}`,
		`{"url":{"a":1}}`,
	}
	res := runCfetch(t, strings.Join(lines, "\n")+"\n", fast...)
	n := 0
	for line := range strings.Lines(res.stderr) {
		n++
		if !strings.HasPrefix(line, "cfetch: <stdin>:") {
			t.Errorf("not in cfetch's format: %q", line)
		}
		if m := goWords.FindString(line); m != "" {
			t.Errorf("%q in Go's words (%q)", strings.TrimSpace(line), m)
		}
	}
	if n != len(lines) {
		t.Errorf("%d lines on stderr for %d bad records:\n%s", n, len(lines), res.stderr)
	}
}
