// Command cdedupe passes each record only the first time its fingerprint
// is seen. See docs/cdedupe.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cdedupe"
	"github.com/crawlutils/crawlutils/internal/cli"
)

func main() { os.Exit(cli.Main(cdedupe.Command())) }
