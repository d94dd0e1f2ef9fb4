// Package cli is the shell every crawlutils command shares: exit codes,
// signal handling, flag parsing with environment and config-file defaults,
// --help and --version, one error printer, input iteration with line-numbered
// errors, the stats summary (and its file, rewritten as the command runs
// with --stats-every; and its snapshots, published to the crawl's store
// with --stats-to for cqueue serve) and the progress line.
//
// A command is declared as a Command: its name, help, flags, subcommands
// and Run(ctx, env) error. Execute owns the rest of its life: it parses
// the arguments (flags, then the environment, then the config file's
// section), hands Run an Env (stdio, the -o output, Getenv, Now, the
// operands, the running Tool) and turns what Run returns into the exit
// status — the one place errors are printed and mapped (ExitCode, after
// gojq's cli). Run streams through Env.Tool (Records, Reject, Fail) and
// returns Tool.Done, an ExitError (Usagef, Partial, Exit) or any error
// (exit 1).
//
// Nothing here touches os.Std*, os.Getenv or os.Exit except Main, which
// runs a Command with the process's Env (OSEnv); a test runs it with
// NewEnv, which reads no environment unless given one (WithEnv).
package cli
