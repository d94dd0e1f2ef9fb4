package cli

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// A rejected line with a lease is answered with an error ack, but not the
// last line of an input that ends inside it: the command before died
// while writing it, and its request must be fetched again, not
// dead-lettered.
func TestRejectAnswersLeasedLinesButNotATornLast(t *testing.T) {
	in := `{"kind":"response","url":"u1","status":"200","request":{"url":"u1","lease":"L1"}}` + "\n" +
		`{"kind":"response","url":"u2","request":{"url":"u2","lease":"L2"},"body":"<h1>cut` + "\n" +
		`{"kind":"response","url":"u3","request":{"url":"u3","lease":"L3"},"body":"<h1>torn`
	tool := NewTool("test", io.Discard)
	tool.LeasePath = []string{"request", "lease"}
	var acks []string
	tool.Answer = func(ack []byte) { acks = append(acks, strings.TrimSpace(string(ack))) }
	for _, env := range tool.Records(context.Background(), ndjson.NewReader(nil, strings.NewReader(in)), nil) {
		// The first line parses (its status is checked later, by the
		// command): reject it as a command would.
		_ = env
	}
	tool.Reject(ndjson.Line{Source: "<stdin>", Num: 1, Bytes: []byte(strings.Split(in, "\n")[0])}, "invalid", io.ErrUnexpectedEOF)
	want := []string{
		`{"kind":"ack","lease":"L2","url":"u2","error":"invalid_record"}`,
		`{"kind":"ack","lease":"L1","url":"u1","error":"invalid_record"}`,
	}
	if strings.Join(acks, "\n") != strings.Join(want, "\n") {
		t.Errorf("acks:\n%s\nwant:\n%s", strings.Join(acks, "\n"), strings.Join(want, "\n"))
	}
}

// TestRejectSaysTheInputEndedInsideTheLine: a bad last line that ends
// without its newline (the command before died while writing it) is
// reported as such, not only as JSON that ends too soon; a bad line that
// has its newline is not.
func TestRejectSaysTheInputEndedInsideTheLine(t *testing.T) {
	in := `{"kind":"request","url":"https://a.example/1"` + "\n" + `{"kind":"request","url":"https://a.ex`
	var stderr strings.Builder
	tool := NewTool("ctest", &stderr)
	for range tool.Records(context.Background(), ndjson.NewReader(nil, strings.NewReader(in)), nil) {
	}
	want := "ctest: <stdin>:1: invalid record: invalid JSON at byte 45: unexpected end of JSON input\n" +
		"ctest: <stdin>:2: invalid record: invalid JSON at byte 37: unexpected end of JSON input (" + tornLine + ")\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}
