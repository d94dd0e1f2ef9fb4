package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/crawlutils/crawlutils/internal/statspub"
)

// Command is a command or a subcommand, declared: its name, its --help,
// its flags and what it does. Execute parses the arguments, calls Run and
// turns what Run returns into the exit status; Run reports through its
// error (see ExitError) and through Env.Tool while it streams.
//
// Flags binds the flags to variables of the run, so a Command is built
// afresh for each run (each command package has a function that returns
// one).
type Command struct {
	// Name is the command's name (cfetch), or the subcommand's (push).
	Name string
	// Help is the text of --help around the flag list.
	Help Help
	// Flags, when set, defines the command's own flags on f; the shared
	// ones (-o, -q, --stats, --config, …) are defined by Execute.
	Flags func(f *Flags)
	// Rewrite, when set, rewrites the arguments before they are parsed.
	Rewrite func(args []string) []string
	// Run does the command's work, with the flags parsed into env.
	Run func(ctx context.Context, env *Env) error
	// Check, when set, checks the settings parsed into env as Run would,
	// without acting on them (nothing read, opened or written): see the
	// function Check. Run need not call it; its errors are Run's usage
	// errors.
	Check func(env *Env) error
	// OpenStats, when set, is how the command publishes its stats
	// (--stats-to): toolstats.OpenSink, given by the tool packages that
	// may link the database drivers. A subcommand without one has its
	// command's.
	OpenStats statspub.Opener

	// Subcommands, when not empty, make the first argument name the
	// subcommand to run (cqueue push): it takes its settings from its own
	// environment variables and config section (see Tool.Sub). HelpText
	// is then the whole of the command's own --help.
	Subcommands []*Command
	HelpText    string
}

// Execute runs cmd with args (without the program's name) in env and
// returns the exit status: the one place where a command's outcome is
// printed and mapped (see ExitCode).
func Execute(ctx context.Context, cmd *Command, args []string, env *Env) int {
	tool := NewTool(cmd.Name, env.Stderr)
	tool.Getenv = env.getenv
	tool.OpenStats = cmd.OpenStats
	return report(tool, execute(ctx, cmd, tool, args, env))
}

func execute(ctx context.Context, cmd *Command, tool *Tool, args []string, env *Env) error {
	if len(cmd.Subcommands) > 0 {
		var names []string
		for _, s := range cmd.Subcommands {
			names = append(names, s.Name)
		}
		if len(args) == 0 {
			return Usagef("missing subcommand (%s)", strings.Join(names, ", "))
		}
		switch args[0] {
		case "-h", "--help", "help":
			fmt.Fprint(env.Stdout, cmd.HelpText)
			return nil
		case "--version":
			fmt.Fprintf(env.Stdout, "%s %s (crawlutils)\n", cmd.Name, Version)
			return nil
		}
		for _, s := range cmd.Subcommands {
			if s.Name == args[0] {
				tool.Sub = s.Name
				if s.OpenStats != nil {
					tool.OpenStats = s.OpenStats
				}
				return runCommand(ctx, s, tool, args[1:], env)
			}
		}
		return Usagef("unknown subcommand %q (%s)", args[0], strings.Join(names, ", "))
	}
	return runCommand(ctx, cmd, tool, args, env)
}

// runCommand parses cmd's flags and runs it, then closes its output.
func runCommand(ctx context.Context, cmd *Command, tool *Tool, args []string, env *Env) error {
	f := tool.NewFlags(cmd.Help)
	if cmd.Flags != nil {
		cmd.Flags(f)
	}
	if cmd.Rewrite != nil {
		args = cmd.Rewrite(args)
	}
	rest, err := f.parse(args, env.Stdout)
	if err != nil {
		return err
	}
	if env.process {
		quietStop.Store(f.quiet)
	}
	e := *env
	e.Args, e.Tool, e.Flags, e.out = rest, tool, f, nil
	if e.Now == nil {
		e.Now = env.now
	}
	if e.Getenv == nil {
		e.Getenv = env.getenv
	}
	err = cmd.Run(ctx, &e)
	tool.stopProgress()
	if cerr := e.CloseOutput(); cerr != nil {
		switch ExitCode(err) {
		case ExitOK:
			err = cerr
		case ExitPartial:
			report(tool, err)
			err = cerr
		default:
			tool.Printf("%v", cerr)
		}
	}
	return err
}
