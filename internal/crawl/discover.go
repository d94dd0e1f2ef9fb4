package crawl

import (
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/policy"
)

// cqueue crawl --discover robots,sitemaps: the seeds carry the request
// field "discover" (unless they have their own), so that cqueue push
// queues the robots.txt and the sitemap.xml of each new host of the crawl
// (see cqueue's discover.go); follow-ups inherit it. What the files list
// is read by the rules' sitemap rules, so a rules file without one is
// refused: nothing would read them.

func (c *crawlCmd) defineDiscover(f *cli.Flags) {
	f.StringSliceVar(&c.o.discoverFlag, "discover", nil, "for each new host of the crawl, also queue its /robots.txt, whose Sitemap: lines the rules' sitemap rules read (robots), and its /sitemap.xml (sitemaps): `LIST` of robots, sitemaps; the seeds ask for it with the request field \"discover\", which follow-ups inherit")
}

// checkDiscover reads --discover, and refuses it for rules without a
// sitemap rule (rules is the rules file's content, already checked).
func (c *crawl) checkDiscover(data []byte) error {
	o := &c.o
	names, err := policy.ParseDiscover(o.discoverFlag)
	if err != nil {
		return cli.Usagef("--discover: %v", err)
	}
	o.discover = names
	if len(names) == 0 {
		return nil
	}
	f, err := rules.Parse(o.rules, data)
	if err != nil {
		return nil // cextract --check passed it; cextract says what is wrong
	}
	if len(f.Sitemaps) == 0 {
		return cli.Usagef("--discover %s: rules %s have no sitemap rule to read robots.txt and sitemaps with: add one (sitemaps: [{allow: REGEX}] follows the pages they list), or leave --discover out",
			strings.Join(names, ","), o.rules)
	}
	return nil
}
