// Command cextract extracts items and links from response records with CSS
// or XPath selectors. See docs/cextract.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cextract"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// The store behind --stats-to is given here, not by package cextract,
// which links no database driver (see internal/layers).
func main() {
	cmd := cextract.Command()
	cmd.OpenStats = toolstats.OpenSink
	os.Exit(cli.Main(cmd))
}
