// Command cextract extracts items and links from response records with CSS
// or XPath selectors. See docs/cextract.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cextract"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/statspub"
)

// cextract links no database driver (see internal/layers): its
// --stats-to goes through a cqueue stats-relay process.
func main() {
	cmd := cextract.Command()
	cmd.OpenStats = statspub.RelayOpener
	os.Exit(cli.Main(cmd))
}
