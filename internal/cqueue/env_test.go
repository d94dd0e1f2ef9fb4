package cqueue

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runEnv runs cqueue with the environment vars and no other.
func runEnv(t *testing.T, vars map[string]string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = executeEnv(context.Background(), vars, args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// TestSubcommandEnvironment: a subcommand's settings come from its own
// variables (CQUEUE_PUSH_BATCH), read through the injected environment,
// not from another subcommand's (CQUEUE_POP_BATCH) nor the command's
// (CQUEUE_BATCH); the store's from CRAWLUTILS_DB; the config file from
// HOME or CRAWLUTILS_CONFIG, by section.
func TestSubcommandEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "q.db")
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, ".config", "crawlutils"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "crawlutils", "config.yml"), []byte("cqueue:\n  push:\n    batch: 0\n"), 0o644)
	cfg := filepath.Join(dir, "pop.yml")
	os.WriteFile(cfg, []byte("cqueue:\n  db: "+db+"\n  pop:\n    batch: -1\n"), 0o644)
	const batchZero = "cqueue: --batch 0: must be at least 1\nTry 'cqueue --help' for more information.\n"
	tests := []struct {
		name   string
		vars   map[string]string
		args   []string
		code   int
		stderr string
	}{
		{"push's own variable", map[string]string{"CQUEUE_PUSH_BATCH": "0"}, []string{"push", "--db", db}, 2, batchZero},
		{"pop's variable is not push's", map[string]string{"CQUEUE_POP_BATCH": "0"}, []string{"push", "-q", "--db", db}, 0, ""},
		{"the command's variable is no subcommand's", map[string]string{"CQUEUE_BATCH": "0"}, []string{"push", "-q", "--db", db}, 0, ""},
		{"the store from CRAWLUTILS_DB", map[string]string{"CRAWLUTILS_DB": db, "CQUEUE_PUSH_QUIET": "true"}, []string{"push"}, 0, ""},
		{"the config under HOME", map[string]string{"HOME": home}, []string{"push", "--db", db}, 2, batchZero},
		{"CRAWLUTILS_CONFIG: a shared setting and pop's section", map[string]string{"HOME": home, "CRAWLUTILS_CONFIG": cfg}, []string{"pop"}, 2, "cqueue: --batch -1: must be at least 1\nTry 'cqueue --help' for more information.\n"},
		{"pop's section is not push's", map[string]string{"CRAWLUTILS_CONFIG": cfg}, []string{"push", "-q"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runEnv(t, tt.vars, "https://a.example/\n", tt.args...)
			if code != tt.code || stderr != tt.stderr {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

// TestOutputFlag: -o FILE means the same in every subcommand: pop and
// info write the file, not stdout; a file that cannot be created is named.
func TestOutputFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "q.db")
	if _, errs, code := run(t, "https://a.example/\n", "push", "-q", "--db", db); code != 0 {
		t.Fatalf("push: %s", errs)
	}
	for sub, want := range map[string]string{"pop": `"url":"https://a.example/"`, "info": `"domain":"a.example"`} {
		path := filepath.Join(dir, sub+".jsonl")
		stdout, stderr, code := run(t, "", sub, "-q", "--db", db, "-o", path)
		got, _ := os.ReadFile(path)
		if code != 0 || stdout != "" || stderr != "" || !strings.Contains(string(got), want) {
			t.Errorf("%s -o: exit %d, stdout %q, stderr %q, file %q", sub, code, stdout, stderr, got)
		}
	}
	bad := filepath.Join(dir, "no", "such", "dir.jsonl")
	if _, stderr, code := run(t, "", "stats", "--db", db, "-o", bad); code != 1 || stderr != "cqueue: -o "+bad+": no such file or directory\n" {
		t.Errorf("stats -o %s: exit %d, stderr %q", bad, code, stderr)
	}
}
