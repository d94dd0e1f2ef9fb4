// Package cli is the shell every crawlutils command shares: exit codes,
// signal handling, flag parsing with environment and config-file defaults,
// --help and --version, one error printer, input iteration with line-numbered
// errors, the stats summary (and its file, rewritten as the command runs
// with --stats-every; and its snapshots, published to the crawl's store
// with --stats-to for cqueue serve) and the progress line.
//
// A command's Run builds a *Tool, reads records through Tool.Records, reports
// problems through Tool's methods and returns Tool.Finish's exit code. Nothing
// here touches os.Std* or calls os.Exit except Main.
package cli
