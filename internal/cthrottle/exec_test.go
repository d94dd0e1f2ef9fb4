package cthrottle

import (
	"context"
	"io"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// execute runs cthrottle in-process, as cli.Main would, with no environment
// (cli.NewEnv): no CTHROTTLE_* variable and no user config file reach it.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Execute(ctx, Command(), args, cli.NewEnv(stdin, stdout, stderr))
}
