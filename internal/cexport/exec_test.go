package cexport

import (
	"context"
	"io"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// execute runs cexport in-process, as cli.Main would, with no environment
// (cli.NewEnv): no CEXPORT_* variable and no user config file reach it.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeEnv(ctx, nil, args, stdin, stdout, stderr)
}

// executeEnv is execute with the environment vars.
func executeEnv(ctx context.Context, vars map[string]string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Execute(ctx, Command(), args, cli.NewEnv(stdin, stdout, stderr).WithEnv(vars))
}
