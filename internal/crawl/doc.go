// Package crawl is cqueue crawl: it runs a whole crawl loop on one
// machine and accounts for it. It checks the rules and every tool's flags
// before anything is created, pushes the seeds (cqueue.PushSeeds), takes
// the crawl's run lock, refuses a rerun that differs from what the crawl
// was started with (identity.go), numbers its rounds (rounds.go), runs the
// loop's stages connected by pipes — cqueue pop, cthrottle, cfetch,
// cextract, cexport, cqueue push; cfetch and cthrottle as processes, the
// others in this process (inproc.go) — and watches them (procs.go), notices a
// stop, a pause and a frontier that lost its state (stopped.go, lost.go),
// and draws one progress line and one account from their stats files
// (account.go, finish.go).
//
// It talks to the frontier through frontier.Frontier and cqueue's Store;
// cqueue (the queue's subcommands) does not import it: cmd/cqueue adds it
// as a subcommand. docs/cqueue.md is the user's reference.
package crawl
