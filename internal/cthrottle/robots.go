package cthrottle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/robots"
)

// What --robots fetches: one robots.txt per origin, at most this many at
// once, each within robotsTimeout, read as cfetch reads it (robots.Head:
// its first robots.MaxSize bytes, to their last complete line),
// following at most robots.MaxRedirects.
const (
	robotsTimeout  = 10 * time.Second
	robotsParallel = 8
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
				if len(via) >= robots.MaxRedirects {
					return fmt.Errorf("more than %d redirects", robots.MaxRedirects)
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
	body, err := io.ReadAll(io.LimitReader(resp.Body, robots.MaxSize))
	if err != nil {
		a.note = "not read: " + err.Error()
		return a
	}
	d := robotsDelay(robots.Head(body, false), f.agent)
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

// robotsDelay returns the time between two requests that the robots.txt
// body asks of agent (a product token): the larger of its Crawl-delay
// and its Request-rate (n/period: period/n), read by package robots as
// cfetch reads the file (the groups naming agent, else the "*" groups; an
// absurd value, over robots.MaxDelay, skipped). 0 when nothing is asked.
func robotsDelay(body []byte, agent string) time.Duration {
	r := robots.Parse(body, agent)
	return max(r.CrawlDelay(), r.RequestInterval())
}
