package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// An aofCrash is one way of losing Redis under a running loop: its
// process killed (SIGKILL), or, when lose > 0, its machine crashed, which
// loses the append-only file's tail that the kernel had not yet written
// to the disk: with appendfsync everysec, what Redis wrote since its last
// fsync, at most a second earlier (two when the disk is slow).
type aofCrash struct {
	name  string
	fsync string
	lose  time.Duration
}

var aofCrashes = []aofCrash{
	{"process_kill_always", "always", 0},
	{"process_kill_everysec", "everysec", 0},
	{"machine_crash_everysec_1s", "everysec", time.Second},
	{"machine_crash_everysec_2s", "everysec", 2 * time.Second},
}

// aofLoss is what one crash cost the crawl.
type aofLoss struct {
	refetched  int     // requests the site saw beyond a perfect crawl's
	reexported int     // products exported more than once
	lost       int     // products never exported
	rate       float64 // the site's requests per second in the second before the crash
	cut        int64   // bytes cut off the append-only file
	requests   int     // the site's requests in all
}

// TestLoopLosesNothingWhenRedisLosesItsLastSecond: Redis (appendfsync
// everysec) dies under a running loop as its machine would crash: the
// server is killed, its append-only file cut back to its size a second
// earlier (what the disk holds when the last fsync was a second ago), the
// torn command at the end removed with redis-check-aof --fix, and the
// server restarted from it on the same port. The frontier and the
// duplicate filter go back a second together, so the pages done in that
// second are handed out and fetched again, and nothing is lost: the loop
// ends by itself, every process exits 0 and every product is exported.
// How many pages are fetched again is logged, not asserted.
//
// With AOF_LOSS_RUNS=N it measures instead: N runs of each of a process
// kill with always and with everysec and a machine crash losing 1 s and
// 2 s, one at a time, and logs the median and maximum of each figure.
func TestLoopLosesNothingWhenRedisLosesItsLastSecond(t *testing.T) {
	if testing.Short() {
		t.Skip("timed pipelines are skipped with -short")
	}
	if _, err := exec.LookPath("redis-check-aof"); err != nil {
		t.Skip("no redis-check-aof")
	}
	bin := binDir(t)
	runs, _ := strconv.Atoi(os.Getenv("AOF_LOSS_RUNS"))
	if runs <= 0 {
		t.Run(aofCrashes[2].name, func(t *testing.T) {
			t.Parallel() // mostly waiting on the site
			loss := crashUnderLoop(t, bin, aofCrashes[2])
			t.Logf("%d requests fetched again (%.1f s at %.0f requests/s), %d products exported twice, %d lost; %d bytes cut",
				loss.refetched, float64(loss.refetched)/loss.rate, loss.rate, loss.reexported, loss.lost, loss.cut)
		})
		return
	}
	var report strings.Builder
	fmt.Fprintf(&report, "%d runs each: median / max\n%-26s %12s %12s %8s %14s %14s %12s\n", runs,
		"case", "refetched", "reexported", "lost", "requests/s", "requests", "bytes cut")
	for _, c := range aofCrashes {
		var losses []aofLoss
		for i := range runs {
			t.Run(fmt.Sprintf("%s/%d", c.name, i), func(t *testing.T) {
				loss := crashUnderLoop(t, bin, c)
				t.Logf("%+v", loss)
				losses = append(losses, loss)
			})
		}
		if len(losses) == 0 {
			continue
		}
		fig := func(f func(aofLoss) float64) string {
			v := make([]float64, len(losses))
			for i, l := range losses {
				v[i] = f(l)
			}
			slices.Sort(v)
			return fmt.Sprintf("%.0f / %.0f", v[len(v)/2], v[len(v)-1])
		}
		fmt.Fprintf(&report, "%-26s %12s %12s %8s %14s %14s %12s\n", c.name,
			fig(func(l aofLoss) float64 { return float64(l.refetched) }),
			fig(func(l aofLoss) float64 { return float64(l.reexported) }),
			fig(func(l aofLoss) float64 { return float64(l.lost) }),
			fig(func(l aofLoss) float64 { return l.rate }),
			fig(func(l aofLoss) float64 { return float64(l.requests) }),
			fig(func(l aofLoss) float64 { return float64(l.cut) }))
	}
	t.Log("\n" + report.String())
}

// crashUnderLoop runs a loop on a Redis of its own, crashes Redis as c
// says mid-crawl, restarts it at once, lets the loop end, and checks and
// returns what the crash cost.
func crashUnderLoop(t *testing.T, bin string, c aofCrash) aofLoss {
	site := loopSite
	site.Products = 800                  // about 5 s of crawl,
	site.Latency = 40 * time.Millisecond // so the crash lands mid-crawl
	srv := redistest.StartServer(t, "--appendonly", "yes", "--appendfsync", c.fsync)
	l := newRedisLoop(t, bin, srv.URL(), site)
	aof := newAOFWatch(srv.Dir(), l)
	proc, stderr := l.start()
	l.waitRequests(1, 30*time.Second)
	// Far enough into the crawl that the lost second or two is crawl,
	// and early enough that some is left.
	time.Sleep(c.lose + time.Second)
	killed := time.Now()
	srv.Kill()
	samples := aof.stop()
	atKill := l.site.Stats().Requests
	loss := aofLoss{rate: float64(atKill - samples.before(killed.Add(-time.Second)).requests)}
	if c.lose > 0 {
		loss.cut = cutAOF(t, srv.Dir(), samples.before(killed.Add(-c.lose)))
	}
	srv.Restart()
	l.waitEnd(proc, stderr)
	if l.site.Stats().Requests <= atKill {
		t.Errorf("the crash did not land mid-crawl: %d requests before it, %d in all", atKill, l.site.Stats().Requests)
	}
	got := l.items()
	for _, p := range l.site.Truth() {
		if got[p.AbsURL(l.url)] == 0 {
			loss.lost++
			t.Errorf("product %s missing from the export", p.URL)
		}
	}
	for _, n := range got {
		loss.reexported += max(n-1, 0)
	}
	loss.refetched, loss.requests = l.site.Stats().Duplicates, l.site.Stats().Requests
	out := stderr.String()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line != "" && !strings.Contains(line, ": warning: Redis at ") && !strings.Contains(line, "cqueue: warning: the frontier lost its last writes") {
			t.Errorf("stderr line not a warning of ours: %q", line)
		}
	}
	if testing.Verbose() {
		os.Stderr.WriteString(out)
	}
	return loss
}

// aofSample is the size of the append-only file Redis was appending to,
// and the site's request count, at a moment.
type aofSample struct {
	at       time.Time
	requests int
	file     string
	size     int64
}

type aofSamples []aofSample

// before is the last sample taken at or before t (the first if none).
func (s aofSamples) before(t time.Time) aofSample {
	best := s[0]
	for _, x := range s {
		if !x.at.After(t) {
			best = x
		}
	}
	return best
}

// aofWatch samples every 50 ms until stopped.
type aofWatch struct {
	halt    func()
	samples aofSamples
}

func newAOFWatch(dir string, l *loop) *aofWatch {
	w := &aofWatch{}
	sample := func() {
		s := aofSample{at: time.Now(), requests: l.site.Stats().Requests}
		if name, err := incrAOF(dir); err == nil {
			s.file = name
			if fi, err := os.Stat(filepath.Join(dir, "appendonlydir", name)); err == nil {
				s.size = fi.Size()
			}
		}
		w.samples = append(w.samples, s)
	}
	sample()
	w.halt = cli.Every(50*time.Millisecond, sample)
	return w
}

// stop stops the sampling (the last sample taken) and returns the samples.
func (w *aofWatch) stop() aofSamples {
	w.halt()
	return w.samples
}

// incrAOF names the incremental append-only file Redis appends to: the
// last one of type i in the manifest (Redis 7's multi-part AOF).
func incrAOF(dir string) (string, error) {
	f, err := os.Open(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	name := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// file appendonly.aof.1.incr.aof seq 1 type i
		if fields := strings.Fields(sc.Text()); len(fields) >= 6 && fields[0] == "file" && fields[len(fields)-1] == "i" {
			name = fields[1]
		}
	}
	if name == "" {
		return "", fmt.Errorf("no incremental file in the manifest")
	}
	return name, sc.Err()
}

// cutAOF cuts the killed server's incremental append-only file back to
// its size at sample s, removes the command torn by the cut with
// redis-check-aof --fix, and returns the bytes cut in all.
func cutAOF(t *testing.T, dir string, s aofSample) int64 {
	t.Helper()
	name, err := incrAOF(dir)
	if err != nil {
		t.Fatal(err)
	}
	if name != s.file {
		t.Fatalf("Redis moved from %s to %s (a rewrite) since the sample: cannot cut back to it", s.file, name)
	}
	path := filepath.Join(dir, "appendonlydir", name)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, s.size); err != nil {
		t.Fatal(err)
	}
	fix := exec.Command("redis-check-aof", "--fix", filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	fix.Stdin = strings.NewReader("y\n") // it asks before it truncates
	if out, err := fix.CombinedOutput(); err != nil {
		t.Fatalf("redis-check-aof --fix: %v\n%s", err, out)
	}
	fixed, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size() - fixed.Size()
}
