package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// mapEnv is a Getenv reading vars.
func mapEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestFlagPrecedence(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.yml")
	os.WriteFile(cfg, []byte("ctest:\n  concurrency: 7\n  name: fromconfig\n  tag: [a, b]\n"), 0o644)
	// The same saved by a Windows editor, with a byte order mark first.
	cfgBOM := filepath.Join(t.TempDir(), "config.yml")
	os.WriteFile(cfgBOM, []byte("\xef\xbb\xbfctest:\r\n  concurrency: 7\r\n  name: fromconfig\r\n  tag: [a, b]\r\n"), 0o644)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantC   int
		wantN   string
		wantTag string
		bom     bool
	}{
		{"config fills unset flags", nil, nil, 7, "fromconfig", "a,b", false},
		{"env beats config", nil, map[string]string{"CTEST_CONCURRENCY": "9"}, 9, "fromconfig", "a,b", false},
		{"flag beats env", []string{"--concurrency", "3"}, map[string]string{"CTEST_CONCURRENCY": "9"}, 3, "fromconfig", "a,b", false},
		{"config with a byte order mark", nil, nil, 7, "fromconfig", "a,b", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"CRAWLUTILS_CONFIG": cfg}
			if tt.bom {
				env["CRAWLUTILS_CONFIG"] = cfgBOM
			}
			for k, v := range tt.env {
				env[k] = v
			}
			tool := NewTool("ctest", new(bytes.Buffer))
			tool.Getenv = mapEnv(env)
			f := tool.NewFlags(Help{})
			c := f.Int("concurrency", 16, "")
			n := f.String("name", "default", "")
			tag := f.StringSlice("tag", nil, "")
			if _, code, done := f.Parse(tt.args, new(bytes.Buffer)); done {
				t.Fatalf("Parse done with %d", code)
			}
			if *c != tt.wantC || *n != tt.wantN || strings.Join(*tag, ",") != tt.wantTag {
				t.Fatalf("got %d %q %v", *c, *n, *tag)
			}
		})
	}
}

func TestParseUsageErrors(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.yml")
	os.WriteFile(cfg, []byte("ctest:\n  bogus: 1\n"), 0o644)
	typo := filepath.Join(t.TempDir(), "config.yml")
	os.WriteFile(typo, []byte("ctest:\n  concurency: 3\n"), 0o644)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"unknown flag", []string{"--nope"}, nil, "ctest: unknown flag: --nope\nTry 'ctest --help'"},
		{"mistyped flag", []string{"--concurency", "3"}, nil, "ctest: unknown flag: --concurency (did you mean --concurrency?)\n"},
		{"mistyped flag with value", []string{"--concurrrency=3"}, nil, "ctest: unknown flag: --concurrrency (did you mean --concurrency?)\n"},
		{"mistyped shared flag", []string{"--quiett"}, nil, "ctest: unknown flag: --quiett (did you mean --quiet?)\n"},
		{"single dash long flag", []string{"-concurrency", "3"}, nil, "ctest: unknown shorthand flag: 'c' in -concurrency (did you mean --concurrency?)\n"},
		{"bad value", []string{"--concurrency=x"}, nil, `invalid argument "x"`},
		{"bad env", nil, map[string]string{"CTEST_CONCURRENCY": "many"}, `environment CTEST_CONCURRENCY="many"`},
		{"unknown config key", []string{"--config", cfg}, nil, "ctest.bogus: unknown setting\n"},
		{"mistyped config key", []string{"--config", typo}, nil, "ctest.concurency: unknown setting (did you mean concurrency?)\n"},
		{"missing explicit config", []string{"--config", "/nonexistent.yml"}, nil, "config: open /nonexistent.yml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			tool := NewTool("ctest", &stderr)
			tool.Getenv = mapEnv(tt.env)
			f := tool.NewFlags(Help{})
			f.Int("concurrency", 16, "")
			_, code, done := f.Parse(tt.args, new(bytes.Buffer))
			if !done || code != ExitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("done=%v code=%d stderr=%q, want %q", done, code, stderr.String(), tt.want)
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	var out bytes.Buffer
	tool := NewTool("ctest", new(bytes.Buffer))
	f := tool.NewFlags(Help{Usage: "ctest [flags]", Summary: "tests things", Examples: "  echo x | ctest"})
	if _, code, done := f.Parse([]string{"-h"}, &out); !done || code != 0 {
		t.Fatal("help did not finish with 0")
	}
	for _, want := range []string{"ctest - tests things", "--output FILE", "echo x | ctest", "130  interrupted", "CTEST_QUIET"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	f = NewTool("ctest", new(bytes.Buffer)).NewFlags(Help{})
	f.Parse([]string{"--version"}, &out)
	if !strings.HasPrefix(out.String(), "ctest "+Version) {
		t.Fatalf("version: %q", out.String())
	}
}

func TestRecordsRejectsBadLinesAndGoesOn(t *testing.T) {
	in := strings.Join([]string{
		`{"kind":"request","url":"https://a/"}`,
		`{"kind":`,
		``,
		`[1,2]`,
		`https://b/`,
	}, "\n")
	var stderr bytes.Buffer
	tool := NewTool("ctest", &stderr)
	var urls []string
	for _, env := range tool.Records(context.Background(), ndjson.NewReader(nil, strings.NewReader(in)), nil) {
		var m map[string]string
		json.Unmarshal(env.Raw, &m)
		urls = append(urls, m["url"])
	}
	if strings.Join(urls, " ") != "https://a/ https://b/" {
		t.Fatalf("urls = %v", urls)
	}
	for _, want := range []string{"ctest: <stdin>:2: invalid record: invalid JSON", "ctest: <stdin>:3: invalid record: empty line", "ctest: <stdin>:4: invalid record: expected a JSON object, got an array"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if code := tool.Finish(context.Background()); code != ExitPartial {
		t.Fatalf("exit %d, want 3", code)
	}
	if tool.Stats.In.Load() != 5 || tool.Stats.Dropped() != 3 {
		t.Fatalf("in %d dropped %d", tool.Stats.In.Load(), tool.Stats.Dropped())
	}
}

func TestFinishCodesAndStatsFile(t *testing.T) {
	statsFile := filepath.Join(t.TempDir(), "s.json")
	tool := NewTool("ctest", new(bytes.Buffer))
	tool.StatsFile = statsFile
	tool.Stats.In.Add(2)
	tool.Stats.Error("timeout")
	tool.Stats.Count("status", "200", 1)
	if code := tool.Finish(context.Background()); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var s StatsJSON
	b, _ := os.ReadFile(statsFile)
	if err := json.Unmarshal(b, &s); err != nil || s.In != 2 || s.Errors["timeout"] != 1 || s.Counts["status"]["200"] != 1 {
		t.Fatalf("stats file %s (%v)", b, err)
	}
	tool.Fail(os.ErrClosed)
	tool.MarkPartial()
	if code := tool.Finish(context.Background()); code != ExitFailure {
		t.Fatalf("failure exit %d", code)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrInterrupted)
	if code := tool.Finish(ctx); code != ExitInterrupted {
		t.Fatalf("interrupted exit %d", code)
	}
}

func TestOpenOutputDevNull(t *testing.T) {
	t.Parallel()
	env := NewEnv(nil, new(bytes.Buffer), new(bytes.Buffer))
	env.Flags = NewTool("ctest", new(bytes.Buffer)).NewFlags(Help{})
	env.Flags.Output = os.DevNull
	w, err := env.Output()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("x\n"))
	if err := env.CloseOutput(); err != nil {
		t.Fatalf("closing -o /dev/null: %v", err)
	}
	if err := env.CloseOutput(); err != nil {
		t.Fatalf("closing twice: %v", err)
	}
}

// errReader fails after its lines: a pipe or disk that breaks mid-input.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, e.err
	}
	return n, err
}

// TestRecordsGoOnAfterAnInputFails: an input that cannot be opened or read
// to its end (a directory, a broken disk) is reported once, named once,
// and the inputs after it are still read, as cat and jq go on with their
// next file; exit 1. A read error used to end the command's input there,
// and its message named the file twice ("read d: read d: is a directory").
func TestRecordsGoOnAfterAnInputFails(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.jsonl")
	os.WriteFile(ok, []byte("https://a.example/2\n"), 0o644)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	stdin := &errReader{strings.NewReader("https://a.example/1\n"), syscall.EIO}
	var stderr bytes.Buffer
	tool := NewTool("ctest", &stderr)
	var urls []string
	r := ndjson.NewReader([]string{"-", sub, filepath.Join(dir, "missing"), ok}, stdin)
	for _, env := range tool.Records(context.Background(), r, nil) {
		var m map[string]string
		json.Unmarshal(env.Raw, &m)
		urls = append(urls, m["url"])
	}
	if strings.Join(urls, " ") != "https://a.example/1 https://a.example/2" {
		t.Errorf("urls = %v", urls)
	}
	want := "ctest: read <stdin>: input/output error\n" +
		"ctest: read " + sub + ": is a directory\n" +
		"ctest: open " + filepath.Join(dir, "missing") + ": no such file or directory\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", &stderr, want)
	}
	if code := tool.Finish(context.Background()); code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
}
