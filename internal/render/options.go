package render

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Options configure a Renderer. The zero value is not useful: start from
// DefaultOptions.
type Options struct {
	// Browser is the path of the Chromium executable; "" looks it up on
	// PATH (see FindBrowser).
	Browser string
	// Concurrency is the most pages rendered at once (tabs open).
	Concurrency int
	// Wait says when a page is done loading (ParseWait).
	Wait Wait
	// Timeout bounds a page from navigation to its DOM: when it is
	// reached, the DOM so far is taken and Page.TimedOut is set.
	Timeout time.Duration
	// Script, when set, is JavaScript run in the page once it has loaded
	// (awaited when it returns a promise), before the DOM is taken.
	Script string
	// ScreenshotDir, when set, receives one PNG per page, named by a hash
	// of the page's URL (Page.Screenshot).
	ScreenshotDir string
	// Block lists the kinds of request the page may not make (BlockKinds).
	Block []string
	// HostRules, when set, is Chromium's --host-resolver-rules ("MAP
	// shop.test 127.0.0.1, MAP * 10.0.0.2"): names the browser connects to
	// at other addresses than DNS gives, as cfetch --resolve does.
	HostRules string
	// MaxMemory, when above 0, is the most memory the browser's processes
	// may hold together (TreeMemory), measured as pages end (at most once
	// a second): past it, no new page starts in the browser; once the
	// pages in it have ended, it is ended and the next page starts a new
	// one (memory.go).
	MaxMemory int64
	// OnMemoryRestart, when set, is called after the browser was ended
	// for MaxMemory, with the memory it held then.
	OnMemoryRestart func(used, limit int64)
	// Stderr receives the browser's own output; nil discards it.
	Stderr interface{ Write([]byte) (int, error) }
}

// DefaultOptions returns the settings of cfetch --render.
func DefaultOptions() Options {
	return Options{Concurrency: 4, Wait: Wait{Kind: WaitLoad}, Timeout: 30 * time.Second,
		MaxMemory: 1 << 30, Block: []string{"images", "fonts", "media"}}
}

// Validate checks o, naming the cfetch flag of a wrong setting.
func (o *Options) Validate() error {
	if o.Concurrency < 1 {
		return fmt.Errorf("--render-concurrency: want 1 or more, got %d", o.Concurrency)
	}
	if o.MaxMemory < 0 {
		return fmt.Errorf("--render-max-memory: want 0 or more, got %d", o.MaxMemory)
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--render-timeout: want a positive duration, got %v", o.Timeout)
	}
	for _, k := range o.Block {
		if _, ok := blockKinds[k]; !ok {
			return fmt.Errorf("--render-block: unknown kind %q (want %s)", k, strings.Join(BlockKinds(), ", "))
		}
	}
	return nil
}

// What a page waits for before its DOM is taken.
const (
	WaitLoad     = "load"     // the load event
	WaitIdle     = "idle"     // the load event, then no request in flight for IdleTime
	WaitSelector = "selector" // the load event, then an element matching Selector
	WaitTime     = "time"     // the load event, then Duration more
)

// IdleTime is how long the network must be quiet for WaitIdle.
const IdleTime = 500 * time.Millisecond

// Wait is when a page is taken (--render-wait).
type Wait struct {
	Kind     string
	Selector string        // WaitSelector
	Duration time.Duration // WaitTime
}

func (w Wait) String() string {
	switch w.Kind {
	case WaitSelector:
		return "css:" + w.Selector
	case WaitTime:
		return w.Duration.String()
	}
	return w.Kind
}

// ParseWait reads a --render-wait value: "load", "idle", "css:SELECTOR"
// or a duration ("2s").
func ParseWait(s string) (Wait, error) {
	switch {
	case s == WaitLoad || s == "":
		return Wait{Kind: WaitLoad}, nil
	case s == WaitIdle:
		return Wait{Kind: WaitIdle}, nil
	case strings.HasPrefix(s, "css:"):
		sel := strings.TrimSpace(s[len("css:"):])
		if sel == "" {
			return Wait{}, errors.New("css: needs a selector, as in css:.product")
		}
		return Wait{Kind: WaitSelector, Selector: sel}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return Wait{}, fmt.Errorf("want load, idle, css:SELECTOR or a duration such as 2s (got %q)", s)
	}
	return Wait{Kind: WaitTime, Duration: d}, nil
}

// blockKinds maps the kinds --render-block names to DevTools resource
// types.
var blockKinds = map[string][]string{
	"images":      {"Image"},
	"fonts":       {"Font"},
	"media":       {"Media", "TextTrack"},
	"stylesheets": {"Stylesheet"},
	"scripts":     {"Script"},
	"xhr":         {"XHR", "Fetch", "EventSource", "WebSocket"},
	"other":       {"Ping", "CSPViolationReport", "Manifest", "Prefetch", "Other"},
}

// BlockKinds lists the kinds a page's requests can be blocked by.
func BlockKinds() []string {
	var k []string
	for name := range blockKinds {
		k = append(k, name)
	}
	slices.Sort(k)
	return k
}

// ParseBlock reads a --render-block list: kinds separated by commas;
// "" or "none" blocks nothing.
func ParseBlock(s string) ([]string, error) {
	if s == "" || s == "none" {
		return nil, nil
	}
	var kinds []string
	for k := range strings.SplitSeq(s, ",") {
		k = strings.TrimSpace(k)
		if _, ok := blockKinds[k]; !ok {
			return nil, fmt.Errorf("unknown kind %q (want none or some of %s)", k, strings.Join(BlockKinds(), ", "))
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return kinds, nil
}

// blockedTypes is the set of DevTools resource types kinds block.
func blockedTypes(kinds []string) map[string]string {
	m := map[string]string{}
	for _, k := range kinds {
		for _, t := range blockKinds[k] {
			m[t] = k
		}
	}
	return m
}

// browserNames are the names FindBrowser looks for on PATH, in order.
// Chromium's headless shell comes first: the same engine without the
// browser's own user interface, it renders a page for less than half the CPU
// (measured on the demo site's JavaScript pages: 0.11 CPU seconds a page
// against 0.27, as the full browser starts a renderer process for most
// pages it navigates to). Debian ships it as chromium-headless-shell,
// Google as chrome-headless-shell.
var browserNames = []string{
	"chromium-headless-shell", "chrome-headless-shell",
	"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome",
}

// ErrNoBrowser is FindBrowser's error when no browser is found.
var ErrNoBrowser = errors.New("no Chromium found on PATH (looked for " + strings.Join(browserNames, ", ") + "): install it (apt-get install chromium-headless-shell, or chromium) or name it with --browser PATH")

// FindBrowser returns path when it names an executable, else the first of
// chromium-headless-shell, chrome-headless-shell, chromium,
// chromium-browser, google-chrome, … found on PATH; a script that only
// runs the browser is replaced by the browser (unwrap).
func FindBrowser(path string) (string, error) {
	if path != "" {
		st, err := os.Stat(path)
		if err != nil {
			return "", fmt.Errorf("--browser: %v", err)
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("--browser: %s is not an executable file", path)
		}
		return unwrap(path), nil
	}
	for _, n := range browserNames {
		if p, err := exec.LookPath(n); err == nil {
			return unwrap(p), nil
		}
	}
	return "", ErrNoBrowser
}
