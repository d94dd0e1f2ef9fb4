#!/usr/bin/env bash
# scripts/crawl.sh SEEDS RULES OUT [flags]: kept for the scripts that call
# it; it is `cqueue crawl` (docs/cqueue.md), which takes the same arguments.
exec cqueue crawl "$@"
