package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Check parses args for cmd as Execute would (for a command with
// subcommands, args[0] names the one), its settings completed from env's
// environment and config file, and calls the command's Check when it has
// one, without running it: nothing is read, opened or written. It returns
// what Execute would report before the command did anything, with the
// command's name in front ("cfetch: unknown flag: --concurency (did you
// mean --concurrency?)"; a subcommand's has both names, "cqueue pop: …",
// as cqueue crawl relays it), or nil. --help and --version pass.
//
// A command that runs others checks their arguments with it before it
// starts anything (cqueue crawl, before it creates its frontier).
func Check(cmd *Command, args []string, env *Env) error {
	tool := NewTool(cmd.Name, io.Discard)
	tool.Getenv = env.getenv
	name := cmd.Name
	if len(cmd.Subcommands) > 0 {
		var sub *Command
		for _, s := range cmd.Subcommands {
			if len(args) > 0 && s.Name == args[0] {
				sub = s
			}
		}
		if sub == nil {
			return Usagef("%s: unknown subcommand %q", cmd.Name, strings.Join(args[:min(1, len(args))], ""))
		}
		tool.Sub, cmd, args = sub.Name, sub, args[1:]
		name += " " + sub.Name
	}
	f := tool.NewFlags(cmd.Help)
	if cmd.Flags != nil {
		cmd.Flags(f)
	}
	if cmd.Rewrite != nil {
		args = cmd.Rewrite(args)
	}
	rest, err := f.parse(args, io.Discard)
	if err == nil && cmd.Check != nil {
		e := *env
		e.Args, e.Tool, e.Flags, e.out = rest, tool, f, nil
		err = cmd.Check(&e)
	}
	if err == nil || errors.Is(err, errStop) {
		return nil
	}
	return &ExitError{Code: ExitCode(err), Err: fmt.Errorf("%s: %w", name, err)}
}
