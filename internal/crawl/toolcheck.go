package crawl

import (
	"strings"

	"github.com/crawlutils/crawlutils/internal/cexport"
	"github.com/crawlutils/crawlutils/internal/cextract"
	"github.com/crawlutils/crawlutils/internal/cfetch"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cqueue"
	"github.com/crawlutils/crawlutils/internal/cthrottle"
)

// stageCommand is the command of the loop's stage key, for checking its
// arguments in this process (pop and push are cqueue's subcommands: their
// arguments begin with the subcommand's name).
func stageCommand(key string) *cli.Command {
	switch key {
	case "pop", "push":
		return cqueue.Command()
	case "cthrottle":
		return cthrottle.Command()
	case "cfetch":
		return cfetch.Command()
	case "cextract":
		return cextract.Command()
	}
	return cexport.Command()
}

// checkTools checks the arguments and settings every tool of the loop will
// be started with (the flags given with --TOOL, the tool's environment
// variables and config section, OUT's format), as the tool itself parses
// them, before anything is stored: a tool that would refuse them is
// reported in its own words, and nothing is queued or created (rather than
// a loop whose every stage dies of a broken pipe, with a seed queued).
func (c *crawl) checkTools() error {
	for _, s := range c.stages(0) {
		env := &cli.Env{Getenv: lookupIn(s.env), Now: c.now}
		err := cli.Check(stageCommand(s.key), s.args, env)
		if err == nil {
			continue
		}
		c.tool.Relay(err.Error())
		var what []string
		if s.key == "cexport" {
			what = append(what, "OUT "+c.o.out)
		}
		if len(c.o.pass[s.key]) > 0 {
			what = append(what, "--"+s.key)
		}
		if len(what) == 0 {
			what = append(what, s.name+"'s settings")
		}
		return cli.Errorf(cli.ExitUsage, "%s: refused by %s (see above): nothing was queued", strings.Join(what, ", "), s.name)
	}
	return nil
}

// lookupIn returns a getenv reading the KEY=VALUE list env; the last
// setting of a key wins, as for a process started with env.
func lookupIn(env []string) func(string) string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}
