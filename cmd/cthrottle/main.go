// Command cthrottle holds requests so that each host (or key) gets at most
// a rate, shared by every process using the same state. See
// docs/cthrottle.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cthrottle"
)

func main() { os.Exit(cli.Main(cthrottle.Command())) }
