// Command cqueue is the crawl's frontier: push, pop, ack, info, stop,
// expire, stats, dump. See docs/cqueue.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cqueue"
)

func main() { os.Exit(cli.Main(cqueue.Command())) }
