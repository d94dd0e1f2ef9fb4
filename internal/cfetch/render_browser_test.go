package cfetch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/integration"
	"github.com/crawlutils/crawlutils/internal/render"
)

// jsSite is a loopback shop whose pages are built by scripts.
type jsSite struct {
	*httptest.Server
	privateHits, imageHits atomic.Int64
}

func newJSSite(t testing.TB) *jsSite {
	s := &jsSite{}
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("slow") != "" {
				time.Sleep(100 * time.Millisecond) // a page that takes a while (server side)
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			http.SetCookie(w, &http.Cookie{Name: "visited", Value: "yes", Path: "/"})
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/shop", page(`<!doctype html><html><body><ul id="products"></ul><img src="/logo.png">
<script>
fetch('/private/prices.json').catch(() => {});
fetch('/api/products.json').then(r => r.json()).then(ps => {
  for (const p of ps) { const li = document.createElement('li'); li.className = 'product'; li.textContent = p.name; document.getElementById('products').appendChild(li); }
  const a = document.createElement('a'); a.href = '/shop?page=2'; a.textContent = 'next'; document.body.appendChild(a);
});
</script></body></html>`))
	mux.HandleFunc("/api/products.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if c, err := r.Cookie("visited"); err != nil || c.Value != "yes" {
			fmt.Fprint(w, `[{"name":"no cookie"}]`)
			return
		}
		fmt.Fprint(w, `[{"name":"Teapot"},{"name":"Kettle"}]`)
	})
	// A page that keeps 160 MiB on window: its tab holds it until the
	// next page.
	mux.HandleFunc("/big", page(`<!doctype html><html><body><script>
window.big = [];
for (let i = 0; i < 40; i++) window.big.push(new Float64Array(1 << 19).fill(i + 0.5));
document.body.className = 'ready';
</script></body></html>`))
	mux.HandleFunc("/private/", func(w http.ResponseWriter, _ *http.Request) { s.privateHits.Add(1) })
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, _ *http.Request) { s.imageHits.Add(1) })
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// needBrowser gates a test that starts Chromium and fails, saying how to
// install it, when there is none.
func needBrowser(t *testing.T) {
	t.Helper()
	integration.Skip(t, "starts Chromium")
	if _, err := render.FindBrowser(""); err != nil {
		t.Fatalf("%v\n\tinstall it with: apt-get install -y chromium-headless-shell", err)
	}
}

// runRecords runs cfetch in-process and returns its records by URL.
func runRecords(t *testing.T, args []string, input string) []map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := execute(context.Background(), args, strings.NewReader(input), &stdout, &stderr); code != 0 {
		t.Fatalf("cfetch %v: exit %d\n%s", args, code, stderr.String())
	}
	var recs []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		recs = append(recs, m)
	}
	return recs
}

func TestRenderedShop(t *testing.T) {
	needBrowser(t)
	s := newJSSite(t)
	recs := runRecords(t, []string{"-q", "--render", "--render-wait", "css:a[href*=page]", "--render-timeout", "2m"}, s.URL+"/shop\n")
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	body, _ := r["body"].(string)
	if r["rendered"] != true || r["status"] != 200.0 || strings.Count(body, `class="product"`) != 2 || !strings.Contains(body, "Teapot") {
		t.Errorf("record: rendered %v, status %v, body %s", r["rendered"], r["status"], body)
	}
	if !strings.Contains(body, `<a href="/shop?page=2">next</a>`) {
		t.Errorf("no link built by the script: %s", body)
	}
	reqs := fmt.Sprint(r["requests"])
	if want := fmt.Sprint([]any{s.URL + "/private/prices.json", s.URL + "/api/products.json"}); reqs != want {
		t.Errorf("requests %s, want %s", reqs, want)
	}
	blocked, _ := json.Marshal(r["render_blocked"])
	if !strings.Contains(string(blocked), `"reason":"robots"`) || !strings.Contains(string(blocked), `"reason":"block"`) {
		t.Errorf("render_blocked %s: want the robots-disallowed XHR and the image", blocked)
	}
	if n := s.privateHits.Load(); n != 0 {
		t.Errorf("the robots-disallowed XHR reached the server %d times", n)
	}
	if n := s.imageHits.Load(); n != 0 {
		t.Errorf("the blocked image was fetched %d times", n)
	}

	// The stats count the pages and what their requests became.
	var stdout, stderr bytes.Buffer
	statsFile := filepath.Join(t.TempDir(), "stats.json")
	if code := execute(context.Background(), []string{"-q", "--render", "--render-wait", "css:a[href*=page]", "--stats", statsFile}, strings.NewReader(s.URL+"/shop?stats\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	stats, err := os.ReadFile(statsFile)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Counts struct{ Render map[string]int }
	}
	if err := json.Unmarshal(stats, &st); err != nil {
		t.Fatal(err)
	}
	// subrequests: the products' fetch(), and whatever else the browser
	// asks for itself (a favicon).
	if c := st.Counts.Render; c["pages"] != 1 || c["subrequests"] < 1 || c["blocked_robots"] != 1 || c["blocked_block"] != 1 {
		t.Errorf("stats' render counts %v: want 1 page, a subrequest or more, one blocked by robots.txt and one by --render-block", c)
	}

	// Only the request that asks for it is rendered.
	recs = runRecords(t, []string{"-q"}, fmt.Sprintf("{\"url\":%q,\"render\":true}\n{\"url\":%q}\n", s.URL+"/shop?a", s.URL+"/shop?b"))
	rendered := 0
	for _, r := range recs {
		if r["rendered"] == true {
			rendered++
			if !strings.HasSuffix(r["url"].(string), "?a") {
				t.Errorf("rendered %v", r["url"])
			}
		}
	}
	if len(recs) != 2 || rendered != 1 {
		t.Errorf("%d records, %d rendered; want 2, 1", len(recs), rendered)
	}
}

// buildCfetch builds the cfetch command into a temporary directory.
func buildCfetch(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cfetch")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/cfetch")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// browserProcesses lists the processes of browsers whose profile is under
// tmp.
func browserProcesses(tmp string) []int {
	var pids []int
	entries, _ := filepath.Glob(filepath.Join(tmp, "crawlutils-chromium-*"))
	for _, dir := range entries {
		pids = append(pids, render.ProcessesUsing(dir)...)
	}
	return pids
}

// pollNone polls (bounded, generously) until no browser with a profile
// under tmp runs, then until tmp can be removed (it is, with the profile).
func pollNone(t *testing.T, tmp, after string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(browserProcesses(tmp)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s: browser processes remain: %v", after, browserProcesses(tmp))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The processes seen gone, their children (which do not carry the
	// profile on their command line) may still be writing in it for a
	// moment: the profile must come to be removable, else one of them
	// lives on.
	for {
		err := os.RemoveAll(tmp)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the browser's profile is still being written: %v", after, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startCfetch starts the built cfetch with a stdin the test writes to and
// its records read line by line.
func startCfetch(t *testing.T, bin, tmp string, args ...string) (*exec.Cmd, *bufio.Writer, *bufio.Scanner, func()) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 64<<20)
	w := bufio.NewWriter(in)
	return cmd, w, sc, func() { in.Close() }
}

// TestRenderScreenshotNotWritten: a --render-screenshot DIR that cannot
// be written (here a file) costs the screenshot, not the page: the DOM is
// the body, with a warning, as a body not saved to --save-dir is.
func TestRenderScreenshotNotWritten(t *testing.T) {
	needBrowser(t)
	s := newJSSite(t)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	recs := runRecords(t, []string{"-q", "--render", "--render-wait", "css:.product", "--render-timeout", "2m", "--render-screenshot", notDir}, s.URL+"/shop\n")
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	body, _ := r["body"].(string)
	if r["error"] != nil || r["status"] != 200.0 || r["rendered"] != true || !strings.Contains(body, "Teapot") {
		t.Errorf("record: error %v (%v), status %v, rendered %v: want the rendered page", r["error"], r["error_detail"], r["status"], r["rendered"])
	}
	if r["screenshot_path"] != nil {
		t.Errorf("screenshot_path %v of a screenshot not written", r["screenshot_path"])
	}
	if w := fmt.Sprint(r["warnings"]); !strings.Contains(w, "not saved to --render-screenshot") || !strings.Contains(w, "not a directory") {
		t.Errorf("warnings %s: want why the screenshot was not saved", w)
	}
}

// TestNoBrowserLeftBehind: SIGINT and kill -9 of cfetch leave no process
// of its browser.
func TestNoBrowserLeftBehind(t *testing.T) {
	needBrowser(t)
	s := newJSSite(t)
	bin := buildCfetch(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd, w, sc, _ := startCfetch(t, bin, tmp, "-q", "--render")
			fmt.Fprintln(w, s.URL+"/shop")
			w.Flush()
			if !sc.Scan() {
				t.Fatalf("no record: %v", sc.Err())
			}
			if len(browserProcesses(tmp)) == 0 {
				t.Fatal("no browser process seen while cfetch runs")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			pollNone(t, tmp, "after "+sig.String()+" of cfetch")
		})
	}
}

// TestBrowserKilledMidCrawl: the browser killed while cfetch renders a
// stream of pages costs retries and loses no request.
func TestBrowserKilledMidCrawl(t *testing.T) {
	needBrowser(t)
	s := newJSSite(t)
	bin := buildCfetch(t)
	tmp := t.TempDir()
	const n = 12
	cmd, w, sc, closeIn := startCfetch(t, bin, tmp, "-q", "--render", "--render-concurrency", "2", "--render-timeout", "2m", "--no-robots")
	for i := range n {
		fmt.Fprintf(w, "%s/shop?slow=1&i=%d\n", s.URL, i)
	}
	w.Flush()
	closeIn()
	if !sc.Scan() {
		t.Fatalf("no record: %v", sc.Err())
	}
	got := 1
	// Kill the browser's main process (the child of cfetch) under the
	// pages in flight.
	killed := false
	for _, pid := range browserProcesses(tmp) {
		if ppid(pid) == cmd.Process.Pid {
			killed = syscall.Kill(pid, syscall.SIGKILL) == nil
		}
	}
	if !killed {
		t.Fatal("found no browser process to kill")
	}
	errors := 0
	for sc.Scan() {
		got++
		if strings.Contains(sc.Text(), `"error":"render"`) {
			errors++
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("cfetch: %v", err)
	}
	if got != n {
		t.Errorf("%d records for %d requests", got, n)
	}
	if errors > 0 {
		t.Errorf("%d pages answered with error render: the retry in a new browser should have rendered them", errors)
	}
	pollNone(t, tmp, "after cfetch ended")
}

// TestBrowserMemoryRestart: pages that make the browser hold more than
// --render-max-memory get it restarted, once the pages in flight have
// ended; every page is answered, the restarts are told on stderr and
// counted in the stats, and no browser process remains.
func TestBrowserMemoryRestart(t *testing.T) {
	needBrowser(t)
	s := newJSSite(t)
	bin := buildCfetch(t)
	tmp := t.TempDir()
	stats := filepath.Join(t.TempDir(), "stats.json")
	const n = 6
	cmd := exec.Command(bin, "-q", "--render", "--render-concurrency", "2", "--render-timeout", "2m", "--no-robots",
		"--render-wait", "css:body.ready", "--render-max-memory", "300M", "--stats", stats)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, "%s/big?i=%d\n", s.URL, i)
	}
	cmd.Stdin = strings.NewReader(in.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cfetch: %v\n%s", err, stderr.String())
	}
	if got := strings.Count(stdout.String(), `"rendered":true`); got != n || strings.Contains(stdout.String(), `"error"`) {
		t.Errorf("%d rendered records of %d requests, errors: %v\n%s", got, n, strings.Contains(stdout.String(), `"error"`), stdout.String())
	}
	if !strings.Contains(stderr.String(), "over --render-max-memory 300MiB: restarted it") {
		t.Errorf("stderr tells no restart:\n%s", stderr.String())
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Counts struct{ Render map[string]int }
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if r := st.Counts.Render["browser_restarts_memory"]; r < 1 || r != strings.Count(stderr.String(), "over --render-max-memory") {
		t.Errorf("stats count %d restarts for the memory limit; stderr:\n%s", r, stderr.String())
	}
	pollNone(t, tmp, "after cfetch ended")
}

// ppid is the parent process id of pid, 0 when unknown.
func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	var state string
	var pp int
	fmt.Sscanf(s[i+2:], "%s %d", &state, &pp)
	return pp
}

// BenchmarkRenderedShop renders the JS shop through the whole of cfetch
// (scheduler, robots.txt, interception, records) at --render-concurrency
// 1 and 4, and reports pages/s.
func BenchmarkRenderedShop(b *testing.B) {
	integration.Skip(b, "starts Chromium")
	s := newJSSite(b)
	for _, conc := range []string{"1", "4"} {
		b.Run("render-concurrency="+conc, func(b *testing.B) {
			var in strings.Builder
			for i := range b.N {
				fmt.Fprintf(&in, "%s/shop?i=%d\n", s.URL, i)
			}
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := execute(context.Background(), []string{"-q", "--render", "--render-concurrency", conc, "--render-wait", "css:.product", "--render-timeout", "2m"},
				strings.NewReader(in.String()), &stdout, &stderr)
			if code != 0 {
				b.Fatalf("exit %d: %s", code, stderr.String())
			}
			if n := strings.Count(stdout.String(), `"rendered":true`); n != b.N {
				b.Fatalf("%d rendered of %d", n, b.N)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pages/s")
		})
	}
}
