// Command cqueue is the crawl's frontier: push, pop, ack, info, stop,
// expire, stats, dump, serve; and crawl, which runs a whole crawl loop.
// See docs/cqueue.md.
package main

import (
	"os"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cqueue"
	"github.com/crawlutils/crawlutils/internal/crawl"
)

func main() { os.Exit(cli.Main(cqueue.Command(crawl.Command()))) }
