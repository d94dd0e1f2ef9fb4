package cli

import (
	"os"
	"runtime/debug"
)

// The tools' garbage collector settings, unless GOGC or GOMEMLIMIT say
// otherwise. A tool of the crawl loop keeps a few MB live and allocates
// fast (a record per page, decoded and encoded), so with Go's default
// (GOGC=100: collect when the heap doubles, from 4 MB) it collects every
// few milliseconds: a fifth of the loop's CPU in the demo crawl. At 400 it
// collects a quarter as often for some 20 MB more per tool; the soft limit
// keeps a tool that holds much (a 50 MB sitemap, a large page) from growing
// five times its live heap past it.
const (
	gcPercent   = 400
	gcSoftLimit = 1 << 30
)

// tuneGC applies the settings above where the environment sets none.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcSoftLimit)
	}
}
