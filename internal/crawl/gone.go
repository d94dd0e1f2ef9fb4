package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// Items gone: once a round is complete, the items of earlier rounds it did
// not see are gone. cexport keeps, with its change state (--key and
// --changed-only, --change-fields or --history), the round each item was
// last seen in; the pages that did not change (a 304) have their items
// extracted all the same (cextract --extract-unchanged), so that they
// count as seen. reportGone then runs cexport --gone ROUND with the loop's
// export flags, and counts what it found.

// reportGone reports the items gone by the end of the round just
// completed, and returns how many. It does nothing for round 1, for an
// export to stdout (OUT -), or when --refresh kept the pages of a recent
// round from being fetched again (their items were not seen, but are not
// gone).
func (c *crawl) reportGone(ctx context.Context) (int64, error) {
	o := &c.o
	if o.out == "-" || c.round < 2 || len(frontier.FreshRounds(c.meta, c.round, o.store.Refresh, c.now())) > 0 {
		return 0, nil
	}
	stats := filepath.Join(c.tmp, "gone.json")
	args := append([]string{"-q", "--stats", stats, "--stats-to=", "--output=" + o.out}, o.pass["cexport"]...)
	args = append(args, "--gone", strconv.Itoa(c.round))
	if code, out := c.runOnce(ctx, "cexport", c.tools.cexport, args...); code != cli.ExitOK {
		return 0, fmt.Errorf("cexport --gone %d (the items not seen in this round) exit %d: %s", c.round, code, strings.TrimSpace(out))
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		return 0, fmt.Errorf("cexport --gone %d: %v", c.round, err)
	}
	var s cli.StatsJSON
	if err := json.Unmarshal(b, &s); err != nil {
		return 0, fmt.Errorf("cexport --gone %d: %s: %v", c.round, stats, err)
	}
	return s.Counts["changes"]["gone"], nil
}
