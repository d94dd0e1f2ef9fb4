package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// exampleTimeout is the longest an example may run.
const exampleTimeout = 2 * time.Minute

// shownRun is how an example's run ended.
type shownRun struct {
	code           int
	stdout, stderr string
	serve          bool // a cqueue serve, interrupted after it answered
}

var serving = regexp.MustCompile(`serving the crawl monitor on http://\S*:(\d+)/`)

// runShown runs an example's lines under bash -e -o pipefail in dir, in a
// process group of its own. A cqueue serve runs until it has answered GET
// / with 200, with untilOutput the example runs until it has written a
// line; then the group gets SIGINT.
func runShown(t *testing.T, dir string, env []string, script string, untilOutput bool) shownRun {
	t.Helper()
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	group := -cmd.Process.Pid
	deadline := time.Now().Add(exampleTimeout)
	r := shownRun{serve: strings.Contains(script, "cqueue serve")}
	var err error
	var waited bool
	if r.serve || untilOutput {
		ready := func() bool {
			if untilOutput {
				return strings.Contains(stdout.String(), "\n")
			}
			m := serving.FindStringSubmatch(stderr.String())
			return m != nil && answers(t, "http://127.0.0.1:"+m[1]+"/")
		}
		waited, err = waitFor(done, deadline, ready)
		if !waited {
			syscall.Kill(group, syscall.SIGINT)
		}
	}
	if !waited {
		select {
		case err = <-done:
		case <-time.After(time.Until(deadline)):
			syscall.Kill(group, syscall.SIGKILL)
			<-done
			t.Fatalf("still running after %v\nstdout:\n%s\nstderr:\n%s", exampleTimeout, tail(stdout.String()), tail(stderr.String()))
		}
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	r.stdout, r.stderr = stdout.String(), stderr.String()
	if r.serve && r.code == 0 {
		r.code = -1 // it ended before it was interrupted
	}
	return r
}

// waitFor polls ready until it is true, the command ends (then waited is
// true, with its error) or the deadline passes.
func waitFor(done chan error, deadline time.Time, ready func() bool) (waited bool, err error) {
	for !ready() && time.Now().Before(deadline) {
		select {
		case err := <-done:
			return true, err
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false, nil
}

// answers says whether GET url answers 200.
func answers(t *testing.T, url string) bool {
	resp, err := http.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s", url, resp.Status)
	} else {
		t.Logf("GET %s: %s", url, resp.Status)
	}
	return true
}

// checkOutput checks that an output ("-": stdout) is not empty, and the
// JSON of a .jsonl, .ndjson or .json file. A database server's table is
// not read back: cexport's exit status says the rows are committed.
func checkOutput(t *testing.T, dir, name, stdout string) {
	t.Helper()
	switch {
	case name == "-":
		if stdout == "" {
			t.Errorf("nothing on stdout")
		}
		return
	case strings.Contains(name, "://"):
		return
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	switch {
	case err != nil:
		t.Errorf("output: %v", err)
	case len(b) == 0:
		t.Errorf("output %s is empty", name)
	case strings.HasSuffix(name, ".json"), strings.HasSuffix(name, ".jsonl"), strings.HasSuffix(name, ".ndjson"):
		if !checkRecords(t, name, string(b)) {
			t.Errorf("%s holds no JSON:\n%s", name, tail(string(b)))
		}
	}
}

// checkRecords checks out, when it is JSON (it starts with { or [): each
// value must be valid, and none a response with an error (a failed fetch).
// It says whether out is JSON.
func checkRecords(t *testing.T, name, out string) bool {
	t.Helper()
	trimmed := strings.TrimSpace(out)
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	for n := 1; ; n++ {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return true
		}
		if err != nil {
			t.Errorf("%s: value %d is not JSON: %v\n%s", name, n, err, tail(out))
			return true
		}
		vals, ok := v.([]any)
		if !ok {
			vals = []any{v}
		}
		for _, v := range vals {
			if rec, ok := v.(map[string]any); ok && rec["kind"] == "response" && rec["error"] != nil {
				t.Errorf("%s: a failed fetch: %s %v: %v", name, rec["url"], rec["error"], rec["error_detail"])
			}
		}
	}
}

// lockedBuffer is a bytes.Buffer that a command writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
