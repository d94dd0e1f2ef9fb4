package cexport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// hangGuard only keeps a broken test from hanging; nothing is timed.
const hangGuard = 30 * time.Second

// chunkReader returns the chunks sent on its channel, blocking when it has
// none, and io.EOF once the channel is closed: an upstream that stalls,
// then ends.
type chunkReader struct {
	chunks chan string
	rest   string
}

func newChunkReader() *chunkReader { return &chunkReader{chunks: make(chan string)} }

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.rest == "" {
		s, ok := <-c.chunks
		if !ok {
			return 0, io.EOF
		}
		c.rest = s
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	return n, nil
}

// watchedBuffer is a concurrency-safe buffer that calls onWrite (if set)
// with its whole content after each write.
type watchedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	onWrite func(content string)
}

func (w *watchedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.onWrite != nil {
		w.onWrite(w.buf.String())
	}
	return n, err
}

func (w *watchedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// runAsync runs cexport in a goroutine and returns its exit status channel.
func runAsync(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) chan int {
	code := make(chan int, 1)
	go func() { code <- execute(ctx, args, stdin, stdout, stderr) }()
	return code
}

func wait[T any](t *testing.T, c chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("gave up waiting for %s", what)
		panic("unreachable")
	}
}

func TestJSONArrayClosedWhenInputEndsEarly(t *testing.T) {
	t.Parallel()
	// The upstream died mid-line: the cut line is rejected, the array is
	// still complete.
	in := `{"kind":"item","data":{"a":1}}` + "\n" + `{"b":2}` + "\n" + `{"kind":"item","data":{"a":`
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"-f", "json"}, strings.NewReader(in), &stdout, &stderr)
	if code != cli.ExitPartial {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, &stderr)
	}
	var items []map[string]int
	if err := json.Unmarshal(stdout.Bytes(), &items); err != nil || len(items) != 2 {
		t.Fatalf("not a JSON array of 2 items (%v):\n%s", err, &stdout)
	}
	if !strings.Contains(stderr.String(), "cexport: <stdin>:3: invalid record: invalid JSON") {
		t.Fatalf("stderr:\n%s", &stderr)
	}
}

func TestExportClosedWhenInterrupted(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "xml"} {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			in := newChunkReader()
			flushed := make(chan struct{})
			var once sync.Once
			stdout := &watchedBuffer{onWrite: func(s string) {
				if strings.Contains(s, "second") {
					once.Do(func() { close(flushed) })
				}
			}}
			var stderr bytes.Buffer
			code := runAsync(ctx, []string{"-f", format}, in, stdout, &stderr)
			in.chunks <- `{"kind":"item","data":{"n":"first"}}` + "\n" + `{"n":"second"}` + "\n"
			wait(t, flushed, "the items to be flushed while the input stalls")
			cancel(cli.ErrInterrupted) // SIGINT while the read blocks
			close(in.chunks)           // then the read returns
			if c := wait(t, code, "Run to return"); c != cli.ExitInterrupted {
				t.Fatalf("exit %d, want 130; stderr:\n%s", c, &stderr)
			}
			out := stdout.String()
			switch format {
			case "json":
				var items []map[string]string
				if err := json.Unmarshal([]byte(out), &items); err != nil || len(items) != 2 {
					t.Fatalf("not a JSON array of 2 items (%v):\n%s", err, out)
				}
			case "xml":
				if !xmlParses(out) || !strings.HasSuffix(out, "</items>\n") {
					t.Fatalf("not a complete XML document:\n%s", out)
				}
			}
		})
	}
}

// TestAckAfterItemsAreInFile pins the crawl loop's guarantee: an ack reaches
// stdout only once the items read before it are in the file.
func TestAckAfterItemsAreInFile(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"jsonl", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "items."+format)
			in := newChunkReader()
			fileAtAck := make(chan string, 1)
			var once sync.Once
			stdout := &watchedBuffer{onWrite: func(s string) {
				if strings.Contains(s, `"kind":"ack"`) {
					once.Do(func() {
						b, _ := os.ReadFile(path)
						fileAtAck <- string(b)
					})
				}
			}}
			var stderr bytes.Buffer
			code := runAsync(context.Background(), []string{"-o", path}, in, stdout, &stderr)
			in.chunks <- `{"kind":"item","data":{"title":"one"}}` + "\n" +
				`{"kind":"request","url":"https://a.example/2"}` + "\n" +
				`{"kind":"item","data":{"title":"two"}}` + "\n" +
				`{"kind":"ack","lease":"L1"}` + "\n"
			file := wait(t, fileAtAck, "the ack on stdout")
			if !strings.Contains(file, "one") || !strings.Contains(file, "two") {
				t.Fatalf("the ack came out while the file held only:\n%s", file)
			}
			close(in.chunks)
			if c := wait(t, code, "Run to return"); c != 0 {
				t.Fatalf("exit %d; stderr:\n%s", c, &stderr)
			}
			want := `{"kind":"request","url":"https://a.example/2"}` + "\n" + `{"kind":"ack","lease":"L1"}` + "\n"
			if got := stdout.String(); got != want {
				t.Fatalf("stdout:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestWithoutOutputFileOtherRecordsAreIgnored(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"kind":"request","url":"https://a/"}`,
		`https://b/`,
		`{"kind":"item","data":{"a":1}}`,
		`{"kind":"ack","lease":"x"}`,
		`{"kind":"response","url":"https://a/","status":200}`,
		`{"kind":"custom"}`,
	}, "\n")
	var stdout, stderr bytes.Buffer
	statsFile := filepath.Join(t.TempDir(), "stats.json")
	code := execute(context.Background(), []string{"--stats", statsFile}, strings.NewReader(in), &stdout, &stderr)
	if code != 0 || stdout.String() != `{"a":1}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, &stdout, &stderr)
	}
	var s cli.StatsJSON
	b, _ := os.ReadFile(statsFile)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"request": 2, "ack": 1, "response": 1, "other": 1}
	for k, v := range want {
		if s.Counts["ignored"][k] != v {
			t.Errorf("ignored %s = %d, want %d (stats %s)", k, s.Counts["ignored"][k], v, b)
		}
	}
	if s.In != 6 || s.Out != 1 {
		t.Errorf("in %d out %d, want 6 1", s.In, s.Out)
	}
}

func TestPassThroughWithOutputFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.csv")
	in := strings.Join([]string{
		`{"kind":"request","url":"https://a/","x":{"keep":[1, 2]}}`,
		`https://b/`,
		`{"kind":"item","data":{"a":1}}`,
		`{"kind":"response","url":"https://a/","status":200}`,
		`{"kind":"custom","z":1}`,
		`{"kind":"ack","lease":"x"}`,
	}, "\n")
	var stdout, stderr bytes.Buffer
	if code := execute(context.Background(), []string{"-o", path}, strings.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, &stderr)
	}
	want := strings.Join([]string{
		`{"kind":"request","url":"https://a/","x":{"keep":[1, 2]}}`,
		`{"kind":"request","url":"https://b/"}`,
		`{"kind":"response","url":"https://a/","status":200}`,
		`{"kind":"custom","z":1}`,
		`{"kind":"ack","lease":"x"}`,
	}, "\n") + "\n"
	if stdout.String() != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", &stdout, want)
	}
	if b, _ := os.ReadFile(path); string(b) != "a\n1\n" {
		t.Fatalf("file %q", b)
	}
	if !strings.Contains(stderr.String(), "passed: ack 1, other 1, request 2, response 1") {
		t.Fatalf("summary:\n%s", &stderr)
	}
}

func TestWriteErrorNamesTheFile(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	in := `{"a":1}` + "\n" + `{"kind":"ack","lease":"L"}` + "\n"
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"-o", "/dev/full", "-f", "jsonl"}, strings.NewReader(in), &stdout, &stderr)
	if code != cli.ExitFailure {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, &stderr)
	}
	if !strings.Contains(stderr.String(), "cexport: write /dev/full: no space left on device") {
		t.Fatalf("stderr:\n%s", &stderr)
	}
	if strings.Contains(stdout.String(), "ack") {
		t.Fatalf("ack passed on although its item was not written: %s", &stdout)
	}
}

func TestOpenErrorNamesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "no", "such", "dir.csv")
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"-o", path}, strings.NewReader(`{"a":1}`), &stdout, &stderr)
	if code != cli.ExitFailure || !strings.Contains(stderr.String(), "cexport: open "+path+": no such file or directory") {
		t.Fatalf("exit %d; stderr:\n%s", code, &stderr)
	}
}

func TestBadItems(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"kind":"item","data":{"a":1}}`,
		`{"kind":"item","data":[1,2]}`,
		`{"kind":"item"}`,
		`{"kind":"item","data":null}`,
		`not json`,
		`{"a":2}`,
	}, "\n")
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"-f", "csv"}, strings.NewReader(in), &stdout, &stderr)
	if code != cli.ExitPartial {
		t.Fatalf("exit %d, want 3", code)
	}
	if stdout.String() != "a\n1\n2\n" {
		t.Fatalf("stdout %q", &stdout)
	}
	for _, want := range []string{
		`cexport: <stdin>:2: invalid record: field "data": expected an object, got an array`,
		`cexport: <stdin>:3: invalid record: field "data" is missing`,
		`cexport: <stdin>:4: invalid record: field "data": expected an object, got null`,
		`cexport: <stdin>:5: invalid record: not a JSON object or a URL`,
		`6 in, 2 out, 4 dropped (invalid 4)`,
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, &stderr)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-f", "yaml"}, {"--append"}, {"--csv-delimiter", "ab"}, {"--xml-root", "a b"}, {"--nope"},
	} {
		var stdout, stderr bytes.Buffer
		if code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want 2; stderr:\n%s", args, code, &stderr)
		}
		if !strings.Contains(stderr.String(), "Try 'cexport --help'") {
			t.Errorf("%v: stderr:\n%s", args, &stderr)
		}
	}
}

// TestAckCommittedMidStream: while the input keeps flowing (no stall to
// flush at), a held ack is passed on after commitEvery records; a large
// record after it makes the stdout buffer overflow at once, and the item
// before the ack must be in the file by then.
func TestAckCommittedMidStream(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.jsonl")
	in := newChunkReader()
	fileAtAck := make(chan string, 1)
	var once sync.Once
	stdout := &watchedBuffer{onWrite: func(s string) {
		if strings.Contains(s, `"kind":"ack"`) {
			once.Do(func() {
				b, _ := os.ReadFile(path)
				fileAtAck <- string(b)
			})
		}
	}}
	var stderr bytes.Buffer
	code := runAsync(context.Background(), []string{"-o", path}, in, stdout, &stderr)
	var chunk strings.Builder
	chunk.WriteString(`{"title":"before the ack"}` + "\n" + `{"kind":"ack","lease":"L1"}` + "\n")
	for range commitEvery {
		chunk.WriteString(`{}` + "\n")
	}
	chunk.WriteString(`{"kind":"request","url":"https://a.example/?q=` + strings.Repeat("x", 100<<10) + `"}` + "\n")
	in.chunks <- chunk.String()
	file := wait(t, fileAtAck, "the ack on stdout")
	if !strings.Contains(file, "before the ack") {
		t.Fatalf("the ack came out while the file held only %d bytes", len(file))
	}
	close(in.chunks)
	if c := wait(t, code, "Run to return"); c != 0 {
		t.Fatalf("exit %d; stderr:\n%s", c, &stderr)
	}
}

// TestDrainAfterInterrupt: reading from a pipe, cexport keeps reading after
// SIGINT (the producer got it too and closes the pipe when done), exports
// what still comes and closes the export; the exit status says 130.
func TestDrainAfterInterrupt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	tool := cli.NewTool("cexport", io.Discard)
	tool.DrainOnInterrupt = true // what the command sets for a pipe on stdin
	o := &Options{Format: "json"}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	in := newChunkReader()
	stdout := &watchedBuffer{}
	code := make(chan int, 1)
	go func() { code <- cli.ExitCode(run(ctx, tool, o, nil, in, stdout, time.Now, nil)) }()
	in.chunks <- `{"n":1}` + "\n"
	cancel(cli.ErrInterrupted)
	in.chunks <- `{"n":2}` + "\n" + `{"n":3}` + "\n"
	close(in.chunks)
	if c := wait(t, code, "run to return"); c != cli.ExitInterrupted {
		t.Fatalf("exit %d, want 130", c)
	}
	var items []map[string]int
	if err := json.Unmarshal([]byte(stdout.String()), &items); err != nil || len(items) != 3 {
		t.Fatalf("want all 3 items in a valid array (%v):\n%s", err, stdout.String())
	}
}

func TestInputIsOutput(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.jsonl")
	os.WriteFile(path, []byte(`{"a":1}`+"\n"), 0o644)
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"-o", path, path}, strings.NewReader(""), &stdout, &stderr)
	if code != cli.ExitUsage || !strings.Contains(stderr.String(), "it is also an input") {
		t.Fatalf("exit %d; stderr:\n%s", code, &stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"a":1}`+"\n" {
		t.Fatalf("the input was changed: %q", b)
	}
}
