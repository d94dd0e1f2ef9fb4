package cfetch

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"

	"github.com/crawlutils/crawlutils/internal/render"
)

// renderCheck is how the requests of a rendered page are judged, before
// the browser sends them, by the rules of cfetch's own requests (one rule,
// one place: the same functions decide):
//
//   - the address policy (private.go): the page's first hop was admitted
//     with the request (admit); a redirect hop is judged as a redirect
//     (addressPolicy.hop), and a request the page makes as a link from the
//     page. A host name the policy does not let reach internal addresses
//     is resolved first and refused when it resolves to one; the browser
//     then resolves it again to connect, so a name that changes its
//     answer in between (DNS rebinding) is not caught as cfetch's own
//     dialer catches it.
//   - robots.txt (robotscache.go's judgeRobots and robotsEntry.check), for
//     everything but the first hop, which the scheduler checked before it
//     started the page. The files are fetched by the Fetcher (robotsStep)
//     and kept per host in renderRobots, apart from the scheduler's cache.
//   - the host's floor delay (render_pace.go), for everything but the
//     first hop, which the scheduler paced.
//
// Once allowed, a request also waits for one of --per-host slots of its
// host (render_hold.go, render.Request.Hold).
func (f *Fetcher) renderCheck(j *job) func(u, from *url.URL, main bool) *render.Refusal {
	firstOK := j.internalOK
	return func(u, from *url.URL, main bool) *render.Refusal {
		internalOK := firstOK
		if from != nil {
			ok, fe := f.policy.hop(from, u)
			if fe != nil {
				return &render.Refusal{Code: ErrPrivateAddress, Detail: fe.Detail}
			}
			internalOK = ok
		}
		if !internalOK {
			if why := f.resolvesInternal(u); why != "" {
				return &render.Refusal{Code: ErrPrivateAddress, Detail: why}
			}
		}
		if from == nil && main {
			f.render.pace.started(hostKey(u), f.now())
			return nil
		}
		if f.opts.RobotsObey {
			if ok, why := f.render.robots.check(f, u); !ok {
				return &render.Refusal{Code: ErrRobots, Detail: why}
			}
		}
		f.paceSubrequest(u)
		if !main {
			f.render.counted("subrequests")
		}
		return nil
	}
}

// resolvesInternal says why u's host may not be connected to when it is
// an internal address or a name that resolves to one, or "".
func (f *Fetcher) resolvesInternal(u *url.URL) string {
	if f.policy.allowAll || f.policy.resolved(u) != nil {
		return ""
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if k := internalKind(ip); k != "" {
			return (&internalAddrError{addr: ip.String(), kind: k}).Error()
		}
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.opts.DNSTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil {
		return "" // the browser fails the same way
	}
	for _, a := range addrs {
		if ip, err := netip.ParseAddr(a); err == nil && internalKind(ip) != "" {
			return (&internalAddrError{host: host, addr: a, kind: internalKind(ip)}).Error()
		}
	}
	return ""
}

// renderRobots keeps the robots.txt of the hosts rendered pages make
// requests to, fetched once per host at a time. Safe for concurrent use.
type renderRobots struct {
	mu    sync.Mutex
	hosts map[string]*robotsHost
}

type robotsHost struct {
	mu    sync.Mutex // held while the file is fetched
	entry *robotsEntry
}

// check says whether u may be fetched by its host's robots.txt, fetching
// the file first when it is not known or has expired.
func (rr *renderRobots) check(f *Fetcher, u *url.URL) (bool, string) {
	key := hostKey(u)
	rr.mu.Lock()
	if rr.hosts == nil {
		rr.hosts = map[string]*robotsHost{}
	}
	h := rr.hosts[key]
	if h == nil {
		h = &robotsHost{}
		if len(rr.hosts) >= robotsCacheSize {
			clear(rr.hosts)
		}
		rr.hosts[key] = h
	}
	rr.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	now := f.now()
	if h.entry == nil || !now.Before(h.entry.expires) {
		rj := &job{robotsFor: key, method: http.MethodGet, header: f.robotsHeader}
		rj.setURL(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"})
		fin := f.robotsStep(context.Background(), rj)
		if fin.robots.entry == nil {
			// Unreachable: the page's request fails the same way.
			h.entry = &robotsEntry{state: robotsAllowAll, expires: now.Add(robotsRetryTTL)}
		} else {
			h.entry = fin.robots.entry
		}
	}
	return h.entry.check(u, f.agent)
}
