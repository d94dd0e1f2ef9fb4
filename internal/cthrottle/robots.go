package cthrottle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/robots"
)

// What --robots fetches: one robots.txt per origin, at most this many at
// once, each within robotsTimeout and robotsMaxSize (RFC 9309 §2.5: at
// least 500 KiB), following at most robotsMaxRedirects.
const (
	robotsTimeout      = 10 * time.Second
	robotsMaxSize      = 500 << 10
	robotsMaxRedirects = 5
	robotsParallel     = 8
)

// robotsFetcher fetches robots.txt files and reads the delay they ask for.
// One http.Client for the process, safe for concurrent use.
type robotsFetcher struct {
	client *http.Client
	agent  string // the product token, lowercased
	max    time.Duration
}

func newRobotsFetcher(agent string, max time.Duration) *robotsFetcher {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 1
	return &robotsFetcher{
		client: &http.Client{
			Transport: tr,
			Timeout:   robotsTimeout,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= robotsMaxRedirects {
					return fmt.Errorf("more than %d redirects", robotsMaxRedirects)
				}
				return nil
			},
		},
		agent: strings.ToLower(strings.TrimSpace(agent)),
		max:   max,
	}
}

// userAgent is the User-Agent of robots.txt fetches: cfetch's default.
func userAgent() string {
	return "crawlutils/" + cli.Version + " (+https://github.com/crawlutils/crawlutils)"
}

// robotsAnswer is what one origin's robots.txt asks of cthrottle.
type robotsAnswer struct {
	origin string
	delay  time.Duration // 0: nothing asked, or no file
	note   string        // for --debug: what was found
}

// fetch reads origin's robots.txt and returns its delay for our agent,
// capped at max. A file that cannot be had (an error, a status other than
// 2xx) asks for nothing: cfetch, which fetches it too, decides what may
// be fetched; cthrottle only spaces the requests.
func (f *robotsFetcher) fetch(ctx context.Context, origin string) robotsAnswer {
	a := robotsAnswer{origin: origin}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		a.note = err.Error()
		return a
	}
	req.Header.Set("User-Agent", userAgent())
	resp, err := f.client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			err = ue.Unwrap()
		}
		a.note = "not read: " + err.Error()
		return a
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		a.note = fmt.Sprintf("status %d: no delay", resp.StatusCode)
		return a
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, robotsMaxSize))
	if err != nil {
		a.note = "not read: " + err.Error()
		return a
	}
	d := robotsDelay(body, f.agent)
	a.delay = min(d, f.max)
	switch {
	case d == 0:
		a.note = "no Crawl-delay or Request-rate"
	case d > f.max:
		a.note = fmt.Sprintf("delay %v, capped at --robots-max-delay %v", d, f.max)
	default:
		a.note = fmt.Sprintf("delay %v", d)
	}
	return a
}

// robotsGroup is one group of a robots.txt: its user agents and the
// delays its lines ask for.
type robotsGroup struct {
	agents []string
	delay  time.Duration
}

// robotsDelay returns the time between two requests that the robots.txt
// body asks of agent (a lowercase product token): the larger of the
// Crawl-delay (seconds) and the Request-rate (n/period: period/n) of the
// groups naming agent, or of the "*" groups when none does. Groups are
// read as RFC 9309 reads them (consecutive User-agent lines share a group,
// groups for one agent are merged); lines that cannot be read are
// skipped. 0 when nothing is asked.
func robotsDelay(body []byte, agent string) time.Duration {
	var groups []*robotsGroup
	var cur *robotsGroup
	inAgents := false
	robots.EachLine(body, func(key, val string) {
		switch key {
		case "user-agent", "useragent":
			if !inAgents {
				cur = &robotsGroup{}
				groups = append(groups, cur)
			}
			inAgents = true
			cur.agents = append(cur.agents, productToken(val))
			return
		case "crawl-delay", "crawldelay":
			if cur != nil {
				if d, ok := parseSeconds(firstField(val)); ok {
					cur.delay = max(cur.delay, d)
				}
			}
		case "request-rate", "requestrate":
			if cur != nil {
				if d, ok := parseRequestRate(firstField(val)); ok {
					cur.delay = max(cur.delay, d)
				}
			}
		}
		inAgents = false
	})
	var mine, star time.Duration
	found := false
	for _, g := range groups {
		for _, a := range g.agents {
			switch a {
			case agent:
				mine, found = max(mine, g.delay), true
			case "*":
				star = max(star, g.delay)
			}
		}
	}
	if found {
		return mine
	}
	return star
}

// productToken is the part of a User-agent value robots.txt matches:
// "Googlebot/2.1 (+http://…)" → "googlebot".
func productToken(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if i := strings.IndexAny(v, "/ \t"); i >= 0 {
		v = v[:i]
	}
	return v
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// maxRobotsDelay bounds the numbers read from a robots.txt (a day), so no
// absurd value overflows; --robots-max-delay caps them further.
const maxRobotsDelay = 24 * time.Hour

// parseSeconds reads a Crawl-delay: seconds, maybe fractional.
func parseSeconds(s string) (time.Duration, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) {
		return 0, false
	}
	if f > maxRobotsDelay.Seconds() {
		return maxRobotsDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}

// parseRequestRate reads a Request-rate: "1/5" (one per 5 seconds),
// "1/5s", "3/1m", "100/1h".
func parseRequestRate(s string) (time.Duration, bool) {
	n, p, ok := strings.Cut(s, "/")
	if !ok {
		return 0, false
	}
	count, err := strconv.ParseFloat(n, 64)
	if err != nil || count <= 0 || math.IsNaN(count) || math.IsInf(count, 0) {
		return 0, false
	}
	unit := time.Second
	switch {
	case strings.HasSuffix(p, "s"):
		p = strings.TrimSuffix(p, "s")
	case strings.HasSuffix(p, "m"):
		p, unit = strings.TrimSuffix(p, "m"), time.Minute
	case strings.HasSuffix(p, "h"):
		p, unit = strings.TrimSuffix(p, "h"), time.Hour
	}
	period, err := strconv.ParseFloat(p, 64)
	if err != nil || period < 0 || math.IsNaN(period) {
		return 0, false
	}
	d := period * float64(unit) / count
	if d > float64(maxRobotsDelay) {
		return maxRobotsDelay, true
	}
	return time.Duration(d), true
}
