// Command cextract extracts items and links from response records with CSS
// or XPath selectors. See docs/cextract.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cextract"
	"github.com/crawlutils/crawlutils/internal/cli"
)

func main() { os.Exit(cli.Main(cextract.Command())) }
