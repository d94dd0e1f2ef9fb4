// Package scripttest runs crawlutils' script tests: txtar files under
// testdata/ that run the real commands — the test binary re-executed under
// each command's name — with real stdio, pipes (exec sh -c '… | …') and exit
// codes, as the Go command's own script tests do.
//
// Besides testscript's built-in commands, scripts get:
//
//	status N cmd args...      run cmd and require exit status N (stdout
//	                          and stderr are kept for the next cmp/stdout/
//	                          stderr)
//	sqlite-lock [-read] FILE  take SQLite's write lock on FILE (BEGIN
//	                          IMMEDIATE), or hold a read transaction with
//	                          -read, in the test process: to the commands,
//	                          another process holds it
//	sqlite-unlock FILE        roll back and let go (else at the script's end)
//	sqlite-check FILE         require PRAGMA integrity_check to say "ok"
//
// and one more program beside the commands, for exec, status or a pipe:
//
//	fsizelimit BYTES cmd args...  run cmd with no file allowed to grow past
//	                              BYTES (RLIMIT_FSIZE, SIGXFSZ ignored): a
//	                              full disk without root or a small tmpfs
//
// Run the tests with -update to rewrite the expected output in the scripts.
package scripttest

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite expected output in script tests")

// Main is the TestMain of a package with script tests: it makes the test
// binary answer to each command's name (cmds builds each command, as its
// package's Command does). m is the package's *testing.M, or one that wraps
// it (integration.Package). It does not return.
func Main(m testscript.TestingM, cmds map[string]func() *cli.Command) {
	mains := make(map[string]func(), len(cmds)+1)
	for name, cmd := range cmds {
		mains[name] = func() { os.Exit(cli.Main(cmd())) }
	}
	mains["fsizelimit"] = func() { os.Exit(fsizeLimitMain()) }
	testscript.Main(m, mains)
}

// Run runs every *.txtar script in dir. setup, when not nil, runs before
// each script (start a server, set variables with env.Setenv).
func Run(t *testing.T, dir string, setup func(env *testscript.Env) error) {
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			// Under -race every process otherwise sleeps 1 s at exit.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			locks := &sqliteLocks{conns: map[string]*sqliteLock{}}
			env.Values[locksKey{}] = locks
			env.Defer(locks.releaseAll)
			if setup != nil {
				return setup(env)
			}
			return nil
		},
		UpdateScripts:       *update,
		RequireExplicitExec: false,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"status":        status,
			"sqlite-lock":   sqliteLockCmd,
			"sqlite-unlock": sqliteUnlockCmd,
			"sqlite-check":  sqliteCheckCmd,
		},
	})
}

func status(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N cmd [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("status: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
