package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/crawlutils/crawlutils/internal/demosite"
)

// chromium is the browser TestMonitorInBrowser drives (Debian's package).
const chromium = "/usr/bin/chromium"

// Crawled content built to run script if the page ever took it for HTML:
// a URL and a crawl id, which the page shows (it never shows titles: the
// frontier does not hold them).
const (
	hostileURLPath = `/evil/<script>window.pwned=1</script>?q=<img src=x onerror="window.pwned=1">`
	hostileCrawlID = `<img src=x onerror="window.pwned=1">`
)

// A crawl id and a URL whose bidi override, isolate, mark and controls
// would show them as something else ("exe.pdf" as "fdp.exe"), and how the
// page shows them: each such character escaped.
const (
	bidiCrawlID      = "gpj.\u202eexe\u2066\u200f\u0007\u0085x"
	bidiCrawlIDShown = "gpj.⟨U+202E⟩exe⟨U+2066⟩⟨U+200F⟩⟨U+0007⟩⟨U+0085⟩x"
	bidiURLPath      = "/report?\u202efdp.exe\u0085"
	bidiURLShown     = "/report?⟨U+202E⟩fdp.exe⟨U+0085⟩"
)

// TestMonitorInBrowser runs cqueue serve beside a real crawl loop of the
// demo site and drives its page in a headless Chromium: the page shows
// the crawl and its counts rise, and the loop's tools (publishing their
// stats to the frontier) with items/s; a hostile URL and crawl id are shown as
// text and run nothing; a Stop pressed on the page, with the token typed
// into it (a wrong one first), ends the crawl loop by itself with nothing
// lost. It saves a screenshot (docs/monitor.png with UPDATE_SCREENSHOT=1).
func TestMonitorInBrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: install it with\n\tapt-get install -y chromium", chromium)
		}
		t.Skipf("%s is missing (apt-get install -y chromium); skipped outside CI", chromium)
	}
	if testing.Short() {
		t.Skip("the browser test is skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	// A site slow enough for the crawl to last while the page watches it.
	opts := loopSite
	opts.Latency = 40 * time.Millisecond
	// Pages enough (about 1,100: 22 s at least) that the crawl is still
	// under way when the test presses Stop.
	opts.Products = 1000
	site := demosite.New(opts)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	l := &loop{t: t, site: site, url: srv.URL, dir: dir, bin: bin, db: "--db " + filepath.Join(dir, "crawl.db")}

	// Three hostile requests, dead-lettered as a stage that could not process
	// them would (an ack with an error), then the crawl's seed.
	var hostile strings.Builder
	for _, r := range []map[string]any{{"url": srv.URL + hostileURLPath, "crawlid": "demo", "priority": 100},
		{"url": srv.URL + "/about.html", "crawlid": hostileCrawlID, "priority": 100},
		{"url": srv.URL + bidiURLPath, "crawlid": bidiCrawlID, "priority": 100}} {
		b, _ := json.Marshal(r)
		hostile.Write(append(b, '\n'))
	}
	l.writeFile("hostile.jsonl", hostile.String())
	l.run(`cqueue push -q $DB < hostile.jsonl && cqueue pop -q $DB --max 3 > popped.jsonl &&
		sed -E 's/.*"lease":"([^"]+)".*/{"kind":"ack","lease":"\1","error":"invalid_record"}/' popped.jsonl | cqueue push -q $DB &&
		echo "$SITE/" | cqueue push -q $DB --crawlid demo --appid demo`)

	// The monitor, with control and its token.
	const token = "browser-test-token"
	serve := l.cmd(`exec cqueue serve $DB --listen 127.0.0.1:0 --allow-control --sample 250ms`)
	serve.Env = append(serve.Env, "CQUEUE_SERVE_TOKEN="+token)
	serveErr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-serve.Process.Pid, syscall.SIGKILL); serve.Wait() })
	base := serveURL(t, serveErr)

	// The crawl loop, as the loop tests run it, one page at a time in
	// flight per fetcher connection, each tool publishing its stats to the
	// frontier's file every half second (as a hand-built loop does it:
	// CRAWLUTILS_STATS_TO for all, --stats-every for each).
	loopCmd := l.cmd(`cd "$W"; ln -sfn ` + filepath.Join(mustGetwd(t), "../../testdata") + ` testdata; set +e
export CRAWLUTILS_STATS_TO="` + filepath.Join(dir, "crawl.db") + `" CRAWLUTILS_STATS_CRAWLID=demo; E="--stats-every 500ms"
cqueue pop -q $E $DB --follow --window 8 --lease 1m | cfetch -q $E --concurrency 2 |
	cextract -q $E -r testdata/rules/demo.yml | cexport -q $E -o items.jsonl | cqueue push -q $E $DB
echo "${PIPESTATUS[*]}" > status`)
	loopCmd.Stderr = os.Stderr
	if err := loopCmd.Start(); err != nil {
		t.Fatal(err)
	}
	loopDone := make(chan error, 1)
	go func() { loopDone <- loopCmd.Wait() }()
	t.Cleanup(func() { syscall.Kill(-loopCmd.Process.Pid, syscall.SIGKILL) })

	// The browser.
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.WindowSize(1280, 1400))...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(alloc)
	defer cancelCtx()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// text reads an element's text in one step of the page's own thread:
	// the page rebuilds its parts every second, so a node found by one
	// protocol call may be gone by the next.
	text := func(sel string) string {
		t.Helper()
		q, _ := json.Marshal(sel)
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(`+string(q)+`) || {}).textContent || ""`))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	const demo = `[data-crawlid="demo"]`
	do("open the page", chromedp.Navigate(base), chromedp.WaitVisible(chromedp.CSS(demo+` .queued`)))

	// The counts rise while the loop crawls.
	done := func() int {
		t.Helper()
		s := text(`#frontier-numbers .acked`)
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			t.Fatalf("pages done %q: %v", s, err)
		}
		return n
	}
	// (By 150 pages the charts have a few seconds of history for the
	// screenshot.)
	first := done()
	deadline := time.Now().Add(time.Minute)
	for done() < first+150 {
		if time.Now().After(deadline) {
			t.Fatalf("pages done stayed at %d (from %d)", done(), first)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if state := text(demo + ` .badge`); state != "running" {
		t.Errorf("the demo crawl shows status %q, want running", state)
	}

	// The loop's five tools show, with their last stats, and items/s and
	// the items exported rise.
	var tools struct {
		Rows  [][]string
		Items string
	}
	readTools := func() {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
			const c = document.querySelector('[data-crawlid="demo"]');
			if (!c) return '{}';
			const rows = [...c.querySelectorAll('.tools tbody tr')].map((r) => [...r.cells].map((td) => td.textContent));
			return JSON.stringify({rows, items: (c.querySelector('.key-items b') || {}).textContent || ''});
		})()`))
		if err != nil {
			t.Fatalf("the tools on the page: %v", err)
		}
		tools.Rows, tools.Items = nil, ""
		json.Unmarshal([]byte(s), &tools)
	}
	exported := func() int {
		for _, r := range tools.Rows {
			if len(r) > 6 && r[0] == "cexport" {
				n, _ := strconv.Atoi(strings.ReplaceAll(r[6], ",", ""))
				return n
			}
		}
		return -1
	}
	deadline = time.Now().Add(time.Minute)
	for readTools(); len(tools.Rows) != 5 || tools.Items == "" || tools.Items == "0" || exported() <= 0; readTools() {
		if time.Now().After(deadline) {
			t.Fatalf("the page shows tools %q and items/s %q; want the loop's 5 tools and items/s above 0", tools.Rows, tools.Items)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var names []string
	for _, r := range tools.Rows {
		names = append(names, r[0]+" "+r[3])
	}
	if got := strings.Join(names, ", "); got != "cexport running, cextract running, cfetch running, cqueue pop running, cqueue push running" {
		t.Errorf("the tools shown: %s", got)
	}
	before := exported()
	for readTools(); exported() <= before; readTools() {
		if time.Now().After(deadline) {
			t.Fatalf("the items cexport exported stayed at %d", before)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The hostile crawled strings are on the page, as text.
	do("wait for the dead letters", chromedp.WaitVisible(chromedp.CSS(demo+` .dead-letters td.url`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-crawlid="`+strings.ReplaceAll(hostileCrawlID, `"`, `\"`)+`"] .name`)))
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(
		`document.body.textContent.includes(%q) && document.body.textContent.includes(%q)`, hostileURLPath, hostileCrawlID)))
	if err != nil || !shown {
		t.Errorf("the page does not show the hostile URL and crawl id as text (%v)", err)
	}
	// The bidi crawl id and URL show escaped, and no such character is
	// anywhere on the page.
	do("wait for the bidi crawl's dead letter", chromedp.WaitVisible(chromedp.CSS(`[data-crawlid="`+bidiCrawlID+`"] .dead-letters td.url`)))
	var bidi struct {
		Name, URL string
		Raw       bool
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const c = document.querySelector('[data-crawlid="`+bidiCrawlID+`"]');
		return JSON.stringify({name: c.querySelector('.name').textContent, url: c.querySelector('.dead-letters td.url').textContent,
			raw: /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(document.body.textContent)});
	})()`))
	if err == nil {
		err = json.Unmarshal([]byte(got), &bidi)
	}
	if err != nil || bidi.Name != bidiCrawlIDShown || !strings.HasSuffix(bidi.URL, bidiURLShown) || bidi.Raw {
		t.Errorf("the bidi crawl shows as %q with URL %q, a raw bidi or control character on the page: %v (%v); want %q and …%q",
			bidi.Name, bidi.URL, bidi.Raw, err, bidiCrawlIDShown, bidiURLShown)
	}
	screenshot(t, ctx)

	// Stop, from the page: a wrong token first, then the right one.
	// The button is found and clicked in one step of the page's thread: the
	// page puts its cards back every second, so a node found by one
	// protocol call may be stale by the next.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { document.querySelector('`+demo+` button.stop').click(); return true; })()`)); err != nil {
		t.Fatalf("press Stop: %v", err)
	}
	do("type a wrong token", chromedp.WaitVisible(chromedp.CSS(`#token`)),
		chromedp.SendKeys(chromedp.CSS(`#token`), "not-the-token"), chromedp.Click(chromedp.CSS(`#confirm-ok`)))
	refused, err := chromedp.Run(ctx, chromedp.Poll[string](`document.getElementById('confirm-error').textContent`,
		chromedp.WithPollingTimeout(time.Minute)))
	if err != nil || refused != "Wrong token." {
		t.Errorf("with a wrong token the page says %q (%v)", refused, err)
	}
	do("confirm with the token", chromedp.SendKeys(chromedp.CSS(`#token`), token), chromedp.Click(chromedp.CSS(`#confirm-ok`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#confirm`)))
	if msg := text(`#message`); !strings.HasPrefix(msg, `stopped “demo”:`) {
		t.Errorf("after Stop the page says %q", msg)
	}

	// The loop ends by itself, every command exiting 0, nothing left.
	select {
	case err := <-loopDone:
		if err != nil {
			t.Fatalf("the crawl loop: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the crawl loop did not end after Stop")
	}
	if st, _ := os.ReadFile(filepath.Join(dir, "status")); strings.TrimSpace(string(st)) != "0 0 0 0 0" {
		t.Errorf("exit statuses %q, want all 0", st)
	}
	var info struct {
		Queued, InFlight, Dead int64
		Crawls                 []struct{ CrawlID, State string }
	}
	if err := json.Unmarshal([]byte(l.run("cqueue info $DB")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Queued != 0 || info.InFlight != 0 || info.Dead != 3 {
		t.Errorf("after the stopped crawl, info: %+v (want nothing queued or in flight, the 3 hostile dead letters)", info)
	}
	for _, c := range info.Crawls {
		if c.CrawlID == "demo" && c.State != "stopped" {
			t.Errorf("crawl demo is %s, want stopped", c.State)
		}
	}
	var stats struct{ Counters map[string]int64 }
	json.Unmarshal([]byte(l.run("cqueue stats $DB")), &stats)
	items := strings.Count(l.run("cat items.jsonl"), "\n")
	if stats.Counters["acked"] == 0 || items == 0 || stats.Counters["purged_stopped"] == 0 {
		t.Errorf("after the stop: %d acked, %d items, %d purged", stats.Counters["acked"], items, stats.Counters["purged_stopped"])
	}

	// The page shows the crawl stopped, not "active", with its totals as
	// its tools published them.
	stoppedShown, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
		const c = document.querySelector('[data-crawlid="demo"]');
		const pages = c && c.querySelector('.key-pages-total b');
		return !!c && c.querySelector('.badge').textContent === 'stopped' && !!pages && Number(pages.textContent.replace(/,/g, '')) > 0;
	})()`, chromedp.WithPollingTimeout(time.Minute)))
	if err != nil || !stoppedShown {
		t.Errorf("after the stop the page shows the demo crawl %q with %q pages (%v)", text(demo+` .badge`), text(demo+` .key-pages-total b`), err)
	}

	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[string](`typeof window.pwned`))
	if err != nil || pwned != "undefined" {
		t.Errorf("window.pwned is %s (%v): crawled content ran as script", pwned, err)
	}
}

// serveURL reads cqueue serve's stderr for the address it serves on, and
// passes the rest of its lines to the test log.
func serveURL(t *testing.T, stderr io.Reader) string {
	t.Helper()
	re := regexp.MustCompile(`serving the crawl monitor on (http://\S+/)`)
	lines := bufio.NewScanner(stderr)
	found := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if m := re.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
				continue
			}
			fmt.Fprintln(os.Stderr, lines.Text())
		}
		close(found)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			t.Fatal("cqueue serve exited without serving")
		}
		return u
	case <-time.After(time.Minute):
		t.Fatal("cqueue serve did not say where it serves")
	}
	return ""
}

// screenshot saves the page as a PNG: to docs/monitor.png with
// UPDATE_SCREENSHOT=1, else to a temporary directory.
func screenshot(t *testing.T, ctx context.Context) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(t.TempDir(), "monitor.png")
	if os.Getenv("UPDATE_SCREENSHOT") == "1" {
		path = "../../docs/monitor.png"
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
