package crawl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cqueue"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// seedResult is what became of the seeds.
type seedResult struct {
	lines    int              // lines that are not blank
	read     int64            // lines read
	queued   int64            // queued now
	again    int64            // of them, seen in the round before (crawl.again)
	refused  map[string]int64 // valid, not queued: duplicate (seen before), stopped, …
	dropped  map[string]int64 // rejected lines, by reason: invalid, empty
	passed   int64            // records of other kinds, ignored
	filePath string           // the file read (stdin is spooled to one)
}

// valid is how many seeds were valid requests, queued or not.
func (s *seedResult) valid() int64 {
	n := s.queued
	for _, v := range s.refused {
		n += v
	}
	return n
}

// rejected is how many seed lines were rejected.
func (s *seedResult) rejected() int64 {
	var n int64
	for _, v := range s.dropped {
		n += v
	}
	return n
}

func (s *seedResult) rejectedNote() string {
	if n := s.rejected(); n > 0 {
		return fmt.Sprintf(", %d rejected: %s", n, joinCounts(s.dropped))
	}
	return ""
}

// readSeeds spools stdin to a file when SEEDS is "-", and sums up the
// seeds for the crawl's identity: the sha256 of their lines, blank ones
// and "#" comments aside (ndjson.IsComment), sorted, each once. So the
// same seeds in another order, or with a blank line or a comment more or
// less, are the same seeds.
func (c *crawl) readSeeds() error {
	path := c.o.seeds
	if path == "-" {
		path = filepath.Join(c.tmp, "seeds")
		f, err := os.Create(path)
		if err == nil {
			_, err = io.Copy(f, c.stdin)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("seeds: read stdin: %v", err)
		}
	}
	c.seed.filePath = path
	f, err := os.Open(path)
	if err != nil {
		return cli.Errorf(cli.ExitUsage, "seeds: %v", describeOpen(err))
	}
	defer f.Close()
	var sums, old [][sha256.Size]byte // old: with the comments, as earlier runs summed them
	r := bufio.NewReader(f)
	for first := true; ; first = false {
		line, err := r.ReadBytes('\n')
		if first {
			// The byte order mark a Windows editor writes is no part of
			// the first seed (ndjson skips it too): the same seeds saved
			// with it are the same seeds.
			line = ndjson.TrimBOM(line)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			sum := sha256.Sum256(t)
			old = append(old, sum)
			if !ndjson.IsComment(line) {
				sums = append(sums, sum)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("seeds: %v", describeOpen(err))
		}
	}
	c.seed.lines = len(sums)
	sum, n := seedsSum(sums)
	c.id.seeds, c.id.seedsSHA, c.id.seedCount = c.o.seeds, sum, n
	c.id.seedsSHAOld, _ = seedsSum(old)
	return nil
}

// seedsSum is the sha256 of the seeds' sums, sorted, each once, and how
// many there are.
func seedsSum(sums [][sha256.Size]byte) (string, int) {
	slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	sums = slices.Compact(sums)
	h := sha256.New()
	for _, s := range sums {
		h.Write(s[:])
	}
	return fmt.Sprintf("%x", h.Sum(nil)), len(sums)
}

// pushSeeds queues the seeds in crawl --crawlid as cqueue push does,
// reporting each bad line with its number and going on with the rest.
func (c *crawl) pushSeeds(ctx context.Context) error {
	t := cli.NewTool("cqueue", c.tool.Stderr)
	t.Quiet = true
	var r *ndjson.Reader
	if c.o.seeds == "-" {
		f, err := os.Open(c.seed.filePath)
		if err != nil {
			return fmt.Errorf("seeds: %v", err)
		}
		defer f.Close()
		r = ndjson.NewReader(nil, f)
	} else {
		r = ndjson.NewReader([]string{c.o.seeds}, nil)
	}
	r.Comments = true // a file written by hand: blank lines and # comments skipped
	if err := cqueue.PushSeeds(ctx, t, c.fr, r, cqueue.Seeds{CrawlID: c.o.crawlID, AppID: c.o.appID, Round: c.round,
		Store: c.o.store, Now: c.now, Meta: c.meta, Discover: c.o.discover, Again: c.again}); err != nil {
		return cli.Exit(cli.ExitFailure) // reported by the pusher
	}
	st := t.Stats.JSON(t.Name)
	s := &c.seed
	s.read = st.In
	s.queued = st.Counts["requests"]["queued"]
	s.again = st.Counts["requests"]["again"]
	s.refused = st.Counts["refused"]
	s.dropped = st.Dropped
	for _, n := range st.Counts["passed"] {
		s.passed += n
	}
	if s.refused == nil {
		s.refused = map[string]int64{}
	}
	if s.passed > 0 {
		c.tool.Printf("warning: %s: %d record(s) that are not requests, ignored", seedsName(c.o.seeds), s.passed)
	}
	return nil
}
