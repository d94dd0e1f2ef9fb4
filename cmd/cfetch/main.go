// Command cfetch fetches request records and writes one response record per
// request. See docs/cfetch.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cfetch"
	"github.com/crawlutils/crawlutils/internal/cli"
)

func main() { os.Exit(cli.Main(cfetch.Command())) }
