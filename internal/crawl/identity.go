package crawl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// identity is what a crawl was started with: its rules, seeds and export.
type identity struct {
	rules, rulesSHA string
	seeds, seedsSHA string
	seedCount       int
	// seedsSHAOld is the seeds' sum as runs before comments were skipped
	// made it, their "#" lines counted as seeds: the same seeds still.
	seedsSHAOld string
	out         string
}

// identityMeta is the metadata --force replaces.
func (id identity) identityMeta() map[string]string {
	return map[string]string{
		"rules": id.rules, "rules_sha256": id.rulesSHA,
		"seeds": id.seeds, "seeds_sha256": id.seedsSHA, "seeds_count": strconv.Itoa(id.seedCount),
		"out": id.out,
	}
}

// meta is the metadata a new crawl starts with.
func (id identity) meta(start time.Time) map[string]string {
	m := id.identityMeta()
	m["started_at"] = start.UTC().Format(time.RFC3339)
	return m
}

// conflicts says how this run differs from what crawlID was started with.
func (id identity) conflicts(crawlID string, m map[string]string) []string {
	var out []string
	if sha := m["rules_sha256"]; sha != "" && sha != id.rulesSHA {
		out = append(out, fmt.Sprintf("crawl %q was started with rules %s (sha256 %s…); this run has other rules (%s, sha256 %s…): use --force to go on with them, or another --crawlid",
			crawlID, m["rules"], short(sha), id.rules, short(id.rulesSHA)))
	}
	if sha := m["seeds_sha256"]; sha != "" && sha != id.seedsSHA && sha != id.seedsSHAOld {
		out = append(out, fmt.Sprintf("crawl %q was started with seeds %s (%s seed(s), sha256 %s…); this run has other seeds (%s: %d seed(s), sha256 %s…): use --force to add them to the crawl, or another --crawlid",
			crawlID, seedsName(m["seeds"]), m["seeds_count"], short(sha), seedsName(id.seeds), id.seedCount, short(id.seedsSHA)))
	}
	return out
}

// oldSeedsSum reports whether m holds the seeds' sum as runs before
// comments were skipped made it, not this run's: to be replaced.
func (id identity) oldSeedsSum(m map[string]string) bool {
	return id.seedsSHAOld != id.seedsSHA && m["seeds_sha256"] == id.seedsSHAOld
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func short(sha string) string { return sha[:min(len(sha), 8)] }
