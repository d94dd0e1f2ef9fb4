// Command cexport writes item records as JSON lines, JSON, CSV or XML.
// See docs/cexport.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cexport"
	"github.com/crawlutils/crawlutils/internal/cli"
)

func main() { os.Exit(cli.Main(cexport.Command())) }
