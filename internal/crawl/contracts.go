package crawl

import (
	"context"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// checkContracts runs the rules file's tests with cextract --test when
// --check is given, before anything is queued: a test that fails refuses
// the crawl (exit 1) with cextract's report of what differs. The tests'
// url: pages are fetched with cfetch's flags of --cfetch.
func (c *crawl) checkContracts(ctx context.Context) error {
	if !c.o.check {
		return nil
	}
	args := []string{"--test", c.o.rules}
	for _, a := range c.o.pass["cfetch"] {
		args = append(args, "--fetch-arg="+a)
	}
	code, out := c.runOnce(ctx, "cextract", c.tools.cextract, args...)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code == cli.ExitOK {
		if !c.o.quiet {
			c.tool.Printf("--check: %s", lines[len(lines)-1])
		}
		return nil
	}
	for _, line := range lines {
		c.tool.Relay(line)
	}
	if code == cli.ExitUsage {
		return cli.Errorf(code, "--check: the tests of %s cannot run (see above): nothing was queued", c.o.rules)
	}
	return cli.Errorf(cli.ExitFailure, "--check: a test of %s failed (see above): nothing was queued", c.o.rules)
}
