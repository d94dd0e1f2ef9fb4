package monitor

import (
	"context"
	"embed"
	"errors"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// Options configure a Server. Frontier and Listen are required.
type Options struct {
	// Frontier is the store watched; the Server reads it (and writes it
	// for an action) but does not close it.
	Frontier frontier.Frontier
	// Tools, when set, is the store the tools publish their stats to (the
	// frontier's: see package toolstats), read at each sample; the Server
	// does not close it.
	Tools toolstats.Store
	// Store names it in the API ("sqlite" or "redis"): never a path or URL
	// with credentials.
	Store string
	// Listen is the address the server listens on (see Serve). It decides
	// the defences: on loopback, requests must name a loopback host;
	// elsewhere every API request needs the token.
	Listen string
	// Token, when set, is what "Authorization: Bearer" must carry for an
	// action, and for every API request off loopback.
	Token string
	// AllowControl enables the actions (stop, expire, pause, resume).
	AllowControl bool
	// Interval is the time between two samples of the frontier: 0 means 1s.
	Interval time.Duration
	// History is how long every sample is kept: 0 means 1h. Beyond it,
	// one point a minute is kept for CoarseHistory (0: 24h).
	History       time.Duration
	CoarseHistory time.Duration
	// DeadEvery is the least time between two reads of the dead letters
	// (each walks the whole frontier): 0 means 10s.
	DeadEvery time.Duration
	// ConsumerTimeout is the frontier's (frontier.Options): a consumer
	// silent for longer is shown as not alive. 0 means the default.
	ConsumerTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Warn receives messages about sampling failures and recoveries, and
	// the HTTP server's own; nil discards them.
	Warn func(msg string)
}

// Server is the crawl monitor: a JSON API under /api/v1/ and one HTML page
// at /, built on samples of the frontier (see the package comment). Its
// methods are safe for concurrent use.
type Server struct {
	o             Options
	fr            frontier.Frontier
	sampler       *sampler
	dead          *deadCache
	token         string
	allowControl  bool
	loopback      bool
	tokenForReads bool
	now           func() time.Time
	warn          func(string)
	resample      chan struct{}
	handler       http.Handler
}

// coarseStep is the resolution of the history kept beyond Options.History.
const coarseStep = time.Minute

// New returns a Server for o. It refuses the options CheckOptions
// refuses.
func New(o Options) (*Server, error) {
	if o.Frontier == nil {
		return nil, errors.New("monitor: no frontier")
	}
	if err := CheckOptions(o.Listen, o.Token, o.AllowControl); err != nil {
		return nil, err
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.History <= 0 {
		o.History = time.Hour
	}
	if o.CoarseHistory <= 0 {
		o.CoarseHistory = 24 * time.Hour
	}
	if o.DeadEvery <= 0 {
		o.DeadEvery = 10 * time.Second
	}
	if o.ConsumerTimeout <= 0 {
		o.ConsumerTimeout = frontier.DefaultConsumerTimeout
	}
	s := &Server{o: o, fr: o.Frontier, token: o.Token, allowControl: o.AllowControl,
		loopback: IsLoopback(o.Listen), now: o.Now, warn: o.Warn, resample: make(chan struct{}, 1)}
	s.tokenForReads = !s.loopback
	if s.now == nil {
		s.now = time.Now
	}
	if s.warn == nil {
		s.warn = func(string) {}
	}
	fine := int(o.History / o.Interval)
	coarse := int(o.CoarseHistory / coarseStep)
	s.sampler = newSampler(o.Frontier, o.Tools, max(fine, 2), max(coarse, 1), coarseStep)
	s.dead = &deadCache{fr: o.Frontier, minEvery: o.DeadEvery}
	s.handler = s.secure(s.routes())
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

//go:embed web
var webFiles embed.FS

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	web, _ := fs.Sub(webFiles, "web")
	files := http.FileServerFS(web)
	mux.Handle("GET /{$}", files)
	mux.Handle("GET /app.js", files)
	mux.Handle("GET /style.css", files)

	reads := map[string]http.HandlerFunc{
		"/api/v1/{$}": s.apiIndex, "/api/v1/crawls": s.apiCrawls, "/api/v1/hosts": s.apiHosts, "/api/v1/series": s.apiSeries,
		"/api/v1/dead": s.apiDead, "/api/v1/consumers": s.apiConsumers, "/api/v1/stats": s.apiStats, "/api/v1/tools": s.apiTools,
	}
	for path, h := range reads {
		mux.HandleFunc("GET "+path, h)
		mux.Handle(path, onlyMethod("GET, HEAD"))
	}
	actions := map[string]http.HandlerFunc{
		"/api/v1/stop": s.actStop, "/api/v1/expire": s.actExpire, "/api/v1/pause": s.actPause(true), "/api/v1/resume": s.actPause(false),
	}
	for path, h := range actions {
		mux.Handle("POST "+path, s.action(h))
		mux.Handle(path, onlyMethod("POST"))
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such resource: see GET /api/v1/")
	})
	return mux
}

// onlyMethod answers 405 to the methods other than allow.
func onlyMethod(allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "use "+allow)
	})
}

// Sample reads the frontier once, at now, as the sampling loop does.
func (s *Server) Sample(ctx context.Context, now time.Time) error {
	return s.sampler.sample(ctx, now)
}

// sampleLoop samples at once, then every Interval and after each action,
// until ctx is done. It reports the first failure of a run of them, and
// the recovery.
func (s *Server) sampleLoop(ctx context.Context) {
	t := time.NewTicker(s.o.Interval)
	defer t.Stop()
	failing := false
	for {
		err := s.sampler.sample(ctx, s.now())
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			s.warn("warning: sampling the frontier: " + err.Error() + " (the API shows the last good sample)")
			failing = true
		case err == nil && failing:
			s.warn("sampling the frontier works again")
			failing = false
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.resample:
		}
	}
}

// Serve samples the frontier and answers HTTP requests on ln until ctx is
// done, then shuts down gracefully (at most 5s for the requests in
// progress). It returns nil after a shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// net/http reads 4096 bytes past MaxHeaderBytes before it
		// refuses: 12 KiB here is the 16 KiB the docs promise.
		MaxHeaderBytes: 16<<10 - 4096,
		ErrorLog:       log.New(warnWriter(s.warn), "http: ", 0),
		BaseContext:    func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	sctx, stop := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() { defer close(sampled); s.sampleLoop(sctx) }()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		sd, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		srv.Shutdown(sd)
		cancel()
		<-errc
	}
	stop()
	<-sampled
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// warnWriter turns the HTTP server's log lines into warnings.
type warnWriter func(string)

func (w warnWriter) Write(p []byte) (int, error) {
	w(string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

var _ io.Writer = warnWriter(nil)
