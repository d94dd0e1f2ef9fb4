package cfetch

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// result is what one in-process run of cfetch produced.
type result struct {
	lines  []string
	resps  []record.Response // the lines of kind response, decoded
	stderr string
	code   int
}

// runCfetch runs cfetch in-process on stdin with args.
func runCfetch(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	return runCfetchCtx(t, context.Background(), strings.NewReader(stdin), args...)
}

func runCfetchCtx(t testing.TB, ctx context.Context, stdin io.Reader, args ...string) result {
	t.Helper()
	return runCfetchEnv(t, ctx, nil, stdin, args...)
}

// runCfetchEnv is runCfetchCtx with the environment vars.
func runCfetchEnv(t testing.TB, ctx context.Context, vars map[string]string, stdin io.Reader, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := executeEnv(ctx, vars, append([]string{"-q"}, args...), stdin, &out, &errb)
	return parseResult(t, out.String(), errb.String(), code)
}

func parseResult(t testing.TB, out, stderr string, code int) result {
	t.Helper()
	r := result{stderr: stderr, code: code}
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		r.lines = append(r.lines, line)
		env, err := record.Parse([]byte(line))
		if err != nil {
			t.Fatalf("output line is not a record: %v\n%s", err, record.Snippet([]byte(line), 200))
		}
		if env.Kind != record.KindResponse {
			continue
		}
		var resp record.Response
		if err := record.Decode(env.Raw, &resp); err != nil {
			t.Fatalf("output response does not decode: %v", err)
		}
		r.resps = append(r.resps, resp)
	}
	return r
}

// one returns the only response of a run.
func (r result) one(t testing.TB) record.Response {
	t.Helper()
	if len(r.resps) != 1 {
		t.Fatalf("got %d responses, want 1\nstdout: %s\nstderr: %s", len(r.resps), strings.Join(r.lines, "\n"), r.stderr)
	}
	return r.resps[0]
}

// fast are flags that keep fault tests quick: no retries unless a test asks.
var fast = []string{"--retries", "0", "--retry-backoff", "1ms", "--timeout", "10s"}
