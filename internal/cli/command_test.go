package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExitCodes: the one mapping of a command's error to its exit status
// and to what is printed.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrInterrupted)
	tests := []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"nil", nil, ExitOK, ""},
		{"plain error", errors.New("open x: no such file"), ExitFailure, "ctest: open x: no such file\n"},
		{"wrapped plain error", fmt.Errorf("store: %w", errors.New("locked")), ExitFailure, "ctest: store: locked\n"},
		{"usage", Usagef("--batch %d: must be at least 1", 0), ExitUsage, "ctest: --batch 0: must be at least 1\nTry 'ctest --help' for more information.\n"},
		{"usage error without the pointer to --help", Errorf(ExitUsage, "rules %s: not usable", "r.yml"), ExitUsage, "ctest: rules r.yml: not usable\n"},
		{"another status", Errorf(4, "already running"), 4, "ctest: already running\n"},
		{"partial", Partial(errors.New("2 records failed")), ExitPartial, "ctest: 2 records failed\n"},
		{"reported already", Exit(ExitPartial), ExitPartial, ""},
		{"exit ok", Exit(ExitOK), ExitOK, ""},
		{"stop", errStop, ExitOK, ""},
		{"interrupted", context.Cause(ctx), ExitInterrupted, "ctest: interrupted\n"},
		{"silent interrupted", Exit(ExitInterrupted), ExitInterrupted, ""},
		{"exit error wrapped", fmt.Errorf("push: %w", Usagef("bad")), ExitUsage, "ctest: push: bad\nTry 'ctest --help' for more information.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			if got := report(NewTool("ctest", &stderr), tt.err); got != tt.code {
				t.Errorf("report = %d, want %d", got, tt.code)
			}
			if got := ExitCode(tt.err); got != tt.code {
				t.Errorf("ExitCode = %d, want %d", got, tt.code)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// testCommand is a command with a subcommand: "ctest push" takes --batch
// and writes it, and the store's name, to its output.
func testCommand() *Command {
	var batch int
	var db string
	return &Command{
		Name:     "ctest",
		HelpText: "ctest - a test\n",
		Subcommands: []*Command{{
			Name: "push",
			Help: Help{Usage: "ctest push", Summary: "push"},
			Flags: func(f *Flags) {
				f.IntVar(&batch, "batch", 10, "")
				f.StringVar(&db, "db", "", "")
			},
			Run: func(ctx context.Context, env *Env) error {
				out, err := env.Output()
				if err != nil {
					return err
				}
				if batch < 1 {
					return Usagef("--batch %d: must be at least 1", batch)
				}
				fmt.Fprintf(out, "batch=%d db=%s args=%v\n", batch, db, env.Args)
				return nil
			},
		}},
	}
}

func execTest(t *testing.T, args []string, vars map[string]string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := NewEnv(strings.NewReader(""), &out, &errb)
	if vars != nil {
		env = env.WithEnv(vars)
	}
	code = Execute(context.Background(), testCommand(), args, env)
	return code, out.String(), errb.String()
}

// TestExecuteGetenv: the injected Getenv, not the process's environment,
// sets a subcommand's flags (CTEST_PUSH_BATCH, and CTEST_DB shared by
// every subcommand) and names the config file (CRAWLUTILS_CONFIG, or
// ~/.config/crawlutils/config.yml under HOME); with no Getenv nothing
// does.
func TestExecuteGetenv(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "crawlutils"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "crawlutils", "config.yml"), []byte("ctest:\n  push:\n    batch: 7\n"), 0o644)
	xdg := t.TempDir()
	os.MkdirAll(filepath.Join(xdg, "crawlutils"), 0o755)
	os.WriteFile(filepath.Join(xdg, "crawlutils", "config.yml"), []byte("ctest:\n  db: x.db\n"), 0o644)
	explicit := filepath.Join(t.TempDir(), "c.yml")
	os.WriteFile(explicit, []byte("ctest:\n  push:\n    batch: 5\n"), 0o644)
	tests := []struct {
		name string
		args []string
		vars map[string]string
		want string
	}{
		{"no environment", []string{"push"}, nil, "batch=10 db= args=[]\n"},
		{"subcommand's variable", []string{"push"}, map[string]string{"CTEST_PUSH_BATCH": "3"}, "batch=3 db= args=[]\n"},
		{"command's variable is not the subcommand's", []string{"push"}, map[string]string{"CTEST_BATCH": "3"}, "batch=10 db= args=[]\n"},
		{"shared setting from the command's variable", []string{"push"}, map[string]string{"CTEST_DB": "q.db"}, "batch=10 db=q.db args=[]\n"},
		{"flag beats variable", []string{"push", "--batch", "2"}, map[string]string{"CTEST_PUSH_BATCH": "3"}, "batch=2 db= args=[]\n"},
		{"HOME names the config", []string{"push", "a"}, map[string]string{"HOME": home}, "batch=7 db= args=[a]\n"},
		{"XDG_CONFIG_HOME before HOME", []string{"push"}, map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg}, "batch=10 db=x.db args=[]\n"},
		{"CRAWLUTILS_CONFIG before HOME", []string{"push"}, map[string]string{"HOME": home, "CRAWLUTILS_CONFIG": explicit}, "batch=5 db= args=[]\n"},
		{"variable beats config", []string{"push"}, map[string]string{"HOME": home, "CTEST_PUSH_BATCH": "4"}, "batch=4 db= args=[]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := execTest(t, tt.args, tt.vars)
			if code != ExitOK || stdout != tt.want || stderr != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

// TestExecuteErrors: usage errors from the arguments, the flags, the
// environment and Run, each printed once with the pointer to --help.
func TestExecuteErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		vars   map[string]string
		code   int
		stderr string
	}{
		{"no subcommand", nil, nil, ExitUsage, "ctest: missing subcommand (push)\nTry 'ctest --help' for more information.\n"},
		{"unknown subcommand", []string{"pull"}, nil, ExitUsage, "ctest: unknown subcommand \"pull\" (push)\nTry 'ctest --help' for more information.\n"},
		{"bad flag", []string{"push", "--nope"}, nil, ExitUsage, "ctest: unknown flag: --nope\nTry 'ctest --help' for more information.\n"},
		{"bad variable", []string{"push"}, map[string]string{"CTEST_PUSH_BATCH": "x"}, ExitUsage, "ctest: environment CTEST_PUSH_BATCH=\"x\": invalid argument \"x\" for \"--batch\" flag: strconv.ParseInt: parsing \"x\": invalid syntax\nTry 'ctest --help' for more information.\n"},
		{"usage from Run", []string{"push", "--batch", "0"}, nil, ExitUsage, "ctest: --batch 0: must be at least 1\nTry 'ctest --help' for more information.\n"},
		{"output names the file", []string{"push", "-o", "/nonexistent/dir/out.jsonl"}, nil, ExitFailure, "ctest: -o /nonexistent/dir/out.jsonl: no such file or directory\n"},
		{"help", []string{"--help"}, nil, ExitOK, ""},
		{"subcommand help", []string{"push", "-h"}, nil, ExitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := execTest(t, tt.args, tt.vars)
			if code != tt.code || stderr != tt.stderr {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

// TestExecuteOutput: -o FILE is opened by Env.Output and closed (synced)
// by Execute, in a subcommand as in a command.
func TestExecuteOutput(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.txt")
	code, stdout, stderr := execTest(t, []string{"push", "-o", path, "x"}, nil)
	got, _ := os.ReadFile(path)
	if code != ExitOK || stdout != "" || stderr != "" || string(got) != "batch=10 db= args=[x]\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q, file %q", code, stdout, stderr, got)
	}
}

// TestEnvNow: Execute hands Run the injected clock, or the real one.
func TestEnvNow(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var got time.Time
	cmd := &Command{Name: "ctest", Run: func(ctx context.Context, env *Env) error { got = env.Now(); return nil }}
	env := NewEnv(nil, new(bytes.Buffer), new(bytes.Buffer))
	env.Now = func() time.Time { return at }
	if code := Execute(context.Background(), cmd, nil, env); code != ExitOK || !got.Equal(at) {
		t.Fatalf("exit %d, now %v", code, got)
	}
	env.Now = nil
	if Execute(context.Background(), cmd, nil, env); time.Since(got) > time.Hour {
		t.Fatalf("now %v without a clock", got)
	}
}

// TestCheck: Check reports what Execute would before running the
// command (unknown or mistyped flags, bad variables, the command's own
// Check), with the command's name, and runs nothing.
func TestCheck(t *testing.T) {
	t.Parallel()
	ran := false
	cmd := func() *Command {
		c := testCommand()
		push := c.Subcommands[0]
		var batch int
		push.Flags = func(f *Flags) { f.IntVar(&batch, "batch", 10, "") }
		push.Run = func(context.Context, *Env) error { ran = true; return nil }
		push.Check = func(env *Env) error {
			if batch < 1 {
				return Usagef("--batch %d: must be at least 1", batch)
			}
			return nil
		}
		return c
	}
	tests := []struct {
		name string
		args []string
		vars map[string]string
		want string
	}{
		{"fine", []string{"push", "--batch", "3", "x"}, nil, ""},
		{"help passes", []string{"push", "--help"}, nil, ""},
		{"mistyped flag", []string{"push", "--bacth", "3"}, nil, "ctest push: unknown flag: --bacth (did you mean --batch?)"},
		{"bad variable", []string{"push"}, map[string]string{"CTEST_PUSH_BATCH": "x"}, `ctest push: environment CTEST_PUSH_BATCH="x": invalid argument`},
		{"the command's check", []string{"push", "--batch", "0"}, nil, "ctest push: --batch 0: must be at least 1"},
		{"unknown subcommand", []string{"pull"}, nil, `ctest: unknown subcommand "pull"`},
	}
	for _, tt := range tests {
		env := NewEnv(strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer)).WithEnv(tt.vars)
		err := Check(cmd(), tt.args, env)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want) || ExitCode(err) != ExitUsage):
			t.Errorf("%s: %v (exit %d), want %q (exit 2)", tt.name, err, ExitCode(err), tt.want)
		}
	}
	if ran {
		t.Error("Check ran the command")
	}
}

// TestSubcommandSummary: a subcommand's summary names it (cqueue pop: …,
// cqueue push: …), so two of them in one pipeline can be told apart.
func TestSubcommandSummary(t *testing.T) {
	t.Parallel()
	c := testCommand()
	c.Subcommands[0].Run = func(ctx context.Context, env *Env) error { return env.Tool.Done(ctx) }
	var stderr bytes.Buffer
	code := Execute(context.Background(), c, []string{"push"}, NewEnv(strings.NewReader(""), new(bytes.Buffer), &stderr))
	if code != ExitOK || !strings.HasPrefix(stderr.String(), "ctest push: 0 in, 0 out") {
		t.Fatalf("exit %d, stderr %q; want the summary as ctest push: …", code, stderr.String())
	}
}

// TestQuietStopIsTheProcessOwn: only the process's own command (Main) sets,
// by its -q, how the process ends when its stdout's reader has gone; a
// command run inside another (cqueue crawl's push, with -q) and the check
// of a command's arguments (Check) leave it as it was. Not parallel: it
// reads and sets the process-wide setting.
func TestQuietStopIsTheProcessOwn(t *testing.T) {
	defer quietStop.Store(quietStop.Load())
	quietStop.Store(false)
	args := []string{"push", "-q"}
	if code := Execute(context.Background(), testCommand(), args, NewEnv(strings.NewReader(""), io.Discard, io.Discard)); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if err := Check(testCommand(), args, NewEnv(nil, io.Discard, io.Discard)); err != nil {
		t.Fatal(err)
	}
	if quietStop.Load() {
		t.Fatal("a command run inside another, or checked, set the process's quiet stop")
	}
	env := NewEnv(strings.NewReader(""), io.Discard, io.Discard)
	env.process = true
	if code := Execute(context.Background(), testCommand(), args, env); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !quietStop.Load() {
		t.Fatal("the process's own command's -q did not set its quiet stop")
	}
}
