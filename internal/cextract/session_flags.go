package cextract

import (
	"context"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// defineSession defines the flags of --test (contracts) and --shell (the
// interactive session).
func (o *Options) defineSession(f *cli.Flags) {
	f.StringVar(&o.Test, "test", "", "run the tests: of the rules file `FILE` (Scrapy's scrapy check): each stored page against the items and links expected; exit 1 with what differs when one fails")
	f.BoolVar(&o.Refetch, "refetch", false, "with --test: fetch the tests' url: pages again (with cfetch) and keep the new ones")
	f.StringVar(&o.Shell, "shell", "", "the interactive session on one page (Scrapy's scrapy shell): fetch `URL` with cfetch (or read a response record FILE) once, then read selectors line by line and print what each selects; :help lists the commands")
	f.StringArrayVar(&o.FetchArgs, "fetch-arg", nil, "with --test or --shell: pass `ARG` to cfetch (repeatable), e.g. --fetch-arg=--render")
}

// checkSession refuses the flags --test and --shell do not combine with.
func (o *Options) checkSession() error {
	n := 0
	for _, s := range []string{o.Check, o.Test, o.Shell} {
		if s != "" {
			n++
		}
	}
	for _, f := range []struct{ name, v string }{{"--test", o.Test}, {"--shell", o.Shell}} {
		if len(f.v) > 1 && strings.HasPrefix(f.v, "-") {
			return cli.Usagef("%s %s: %s takes the file (or URL) right after it, not a flag", f.name, f.v, f.name)
		}
	}
	switch {
	case n > 1:
		return cli.Usagef("--check, --test and --shell: give one of them")
	case o.Refetch && o.Test == "":
		return cli.Usagef("--refetch: only with --test")
	case len(o.FetchArgs) > 0 && o.Test == "" && o.Shell == "":
		return cli.Usagef("--fetch-arg: only with --test or --shell")
	}
	return nil
}

// runSession runs --test or --shell.
func (o *Options) runSession(ctx context.Context, env *cli.Env) error {
	if err := o.checkSession(); err != nil {
		return err
	}
	if o.Test != "" {
		if len(env.Args) > 0 {
			return cli.Usagef("--test: takes no input files (the tests name their pages)")
		}
		return runTests(ctx, env.Tool, env.Stdout, o.Test, testOptions{refetch: o.Refetch, fetchArgs: o.FetchArgs})
	}
	if len(env.Args) > 0 {
		return cli.Usagef("--shell: takes no input files (the session reads its lines on stdin)")
	}
	return runShell(ctx, env, o.Shell, o.FetchArgs)
}
