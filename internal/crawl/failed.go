package crawl

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cfetch"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// A run that could fetch nothing at all (every fetch failed, or was
// answered 5xx or 429) leaves its round unfinished, and says why in the
// crawl's metadata (metaLastFailure). Its seeds were fetched, so the
// round's duplicate filter has them as seen: pushed again as usual they
// would be refused, and with nothing left queued the round could never go
// on. So when the failure is one that may be gone by the next run (the
// site was down: refused, DNS, a timeout, 5xx), the next run queues them
// again (cqueue.Seeds.Again) and the round goes on; when it is one that
// would come back every time (robots.txt disallows the seeds, an internal
// address, an offsite redirect), the next run says so instead of fetching
// them again and again, and --resume has it try all the same.

const (
	// metaLastFailure is the crawl metadata that says its last run
	// fetched nothing at all, and why ("every seed failed: refused 1").
	metaLastFailure = "last_failure"
	// metaLastFailureAgain says whether a run again may not meet that
	// failure: "yes" or "no". A crawl whose last run was made by an older
	// cqueue has none; its failure is judged by its error codes.
	metaLastFailureAgain = "last_failure_again"
)

// unavailableStatus reports whether an HTTP status (a key of
// pages.by_status) says the server could not answer for now: 5xx, 429.
// A page answered so was not fetched.
func unavailableStatus(status string) bool {
	n, err := strconv.Atoi(status)
	return err == nil && cfetch.Unavailable(n)
}

// failureCounts are the counts of a run's failed fetches, by cause: the
// pages' error codes, and status_NNN for the pages answered with an
// unavailable status.
func failureCounts(a *crawlAccount) map[string]int64 {
	out := map[string]int64{}
	for k, n := range a.Pages.Errors {
		out[k] += n
	}
	for k, n := range a.Pages.ByStatus {
		if unavailableStatus(k) {
			out["status_"+k] += n
		}
	}
	return out
}

// mayPass reports whether a run again may not meet the failures counted:
// one of them at least is of the site or the network being down (the
// others are fetched again with it, and fail again, as any page may).
// robotsUnavailable says the robots errors among them came (some at
// least) from a robots.txt the server could not give (5xx), not from one
// that disallows the pages.
func mayPass(counts map[string]int64, robotsUnavailable bool) bool {
	for k, n := range counts {
		if n <= 0 {
			continue
		}
		if cfetch.MayPass(k) || strings.HasPrefix(k, "status_") || k == cfetch.ErrRobots && robotsUnavailable {
			return true
		}
	}
	return false
}

// lastFailureMayPass reports whether the failure of the crawl's last run,
// as its metadata m says it, may not come back.
func lastFailureMayPass(m map[string]string) bool {
	switch m[metaLastFailureAgain] {
	case "yes":
		return true
	case "no":
		return false
	}
	// Said by an older cqueue: "every seed failed: refused 1, dns 2".
	_, counts, _ := strings.Cut(m[metaLastFailure], ": ")
	parsed := map[string]int64{}
	for _, part := range strings.Split(counts, ", ") {
		k, v, ok := strings.Cut(part, " ")
		if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil {
			parsed[k] = n
		}
	}
	return mayPass(parsed, false)
}

// seedsAgain says whether this run queues its round's seeds again: the
// last run of the round could fetch nothing, for a cause that may be gone
// (or --resume asks to try whatever the cause), and nothing of the round
// is left queued or in flight (what was left failed).
func (c *crawl) seedsAgain(ctx context.Context) (bool, error) {
	if c.newRound || c.meta[metaLastFailure] == "" || !c.o.resume && !lastFailureMayPass(c.meta) {
		return false, nil
	}
	queued, inFlight, err := c.leftOf(ctx)
	return err == nil && queued+inFlight == 0, err
}

// failedBefore is the error of a run that finds nothing of its round left
// and its seeds seen, after a run that could fetch nothing for a cause
// that comes back every time (robots.txt disallows them, …).
func (c *crawl) failedBefore() error {
	return fmt.Errorf("crawl %q round %d has nothing queued or in flight and its seeds were seen in it, but its last run could fetch nothing (%s), for a cause that would come back (not the site being down): once it is fixed, run the same command with --resume to fetch them again, or, %s",
		c.o.crawlID, c.round, c.meta[metaLastFailure], c.startAnew())
}

// fetchedNothingLine is the verdict of a run that could fetch nothing and
// left nothing queued or in flight: what the next run does.
func (c *crawl) fetchedNothingLine(a crawlAccount, again bool) string {
	if again {
		return fmt.Sprintf("round %d is not complete: the next run queues its seeds again and goes on with it", a.Round)
	}
	return fmt.Sprintf("nothing is left queued or in flight, and the seeds are marked as seen in round %d: the cause would come back (it is not the site being down), so the next run does not fetch them again; once it is fixed, run the same command with --resume to fetch them again, or, %s",
		a.Round, c.startAnew())
}

// startAnew says how to start a crawl over: with a frontier that has no
// record of it, and OUT gone (checkFrontier refuses a new crawl into an
// export, which it would export again).
func (c *crawl) startAnew() string {
	out := ""
	if exportExists(c.o.out) {
		out = ", and remove " + outName(c.o.out)
	}
	if storeurl.IsRedisURL(c.o.dsn) {
		return "to start the crawl over, give another --crawlid" + out
	}
	return fmt.Sprintf("to start the crawl over, remove %s (or give another --crawlid)%s", cli.ShellQuote(c.o.dsn), out)
}
