package cfetch

import (
	"context"
	"io"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// execute runs cfetch in-process, as cli.Main would, with no environment
// (cli.NewEnv): no CFETCH_* or proxy variable and no user config file
// reach it.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeEnv(ctx, nil, args, stdin, stdout, stderr)
}

// executeEnv is execute with the environment vars.
func executeEnv(ctx context.Context, vars map[string]string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Execute(ctx, Command(), args, cli.NewEnv(stdin, stdout, stderr).WithEnv(vars))
}

// parseFlags parses args as cfetch does and returns the options and the
// files, without running; code is the exit status of a usage error (help,
// version or a usage error are done: code then says how it ended).
func parseFlags(args []string, stderr io.Writer) (opts Options, files []string, code int, done bool) {
	cmd, c := newCommand()
	ran := false
	cmd.Run = func(ctx context.Context, env *cli.Env) error {
		ran, files = true, env.Args
		return c.apply()
	}
	code = cli.Execute(context.Background(), cmd, args, cli.NewEnv(nil, io.Discard, stderr))
	return c.opts, files, code, !ran || code != 0
}
