package e2e

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// kafkaRecipe is docs/distributed.md's Kafka recipe, as a script: a
// Scrapy Cluster client's crawl request goes to the topic demo.incoming;
// the feeder (kcat in a consumer group) pushes the topic's requests into
// the frontier; the crawl loop ends with cqueue push, which passes the
// items on, and kcat sends them to the topic demo.crawled_firehose. Here
// the feeder stops at the end of the topic (-e) and the items are read
// back into items-kafka.jsonl.
const kafkaRecipe = `set -e
echo "{\"url\": \"$SITE/\", \"appid\": \"demo\", \"crawlid\": \"kafka1\"}" | kcat -b "$KAFKA" -P -t demo.incoming

kcat -b "$KAFKA" -G crawlutils-feeder -o beginning -e -q -u demo.incoming | cqueue push -q $DB --crawl-mode

cqueue pop -q $DB --follow | cfetch -q | cextract -q -r ../../testdata/rules/demo.yml | cqueue push -q $DB |
	jq -c --unbuffered 'select(.kind == "item")' | kcat -b "$KAFKA" -P -t demo.crawled_firehose
echo "${PIPESTATUS[*]}" > "$W/status-kafka"

kcat -b "$KAFKA" -C -t demo.crawled_firehose -o beginning -e -q > "$W/items-kafka.jsonl"
`

// TestKafkaRecipe runs the Kafka recipe with Debian's kcat against the
// mock Kafka cluster built into librdkafka (kcat -X
// test.mock.num.brokers=1: a broker speaking Kafka's protocol on a
// loopback port, in the memory of one kcat process; Debian packages no
// Kafka broker). It checks the plumbing: the crawl request from the
// topic starts the crawl, every product comes back on the items topic
// once, and the site sees a perfect crawl. What it cannot check is
// Apache Kafka itself (retention, rebalancing, offsets kept across
// restarts).
func TestKafkaRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("kcat"); err != nil {
		msg := "kcat not found (install Debian's kcat): " + err.Error()
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin := binDir(t)
	kafka := startMockKafka(t)
	url := redistest.Start(t)
	l := &loop{t: t, site: demosite.New(loopSite), dir: t.TempDir(), bin: bin, db: "--redis " + url}
	hs := httptest.NewServer(l.site)
	defer hs.Close()
	l.url = hs.URL

	c := l.cmd(kafkaRecipe)
	c.Env = append(c.Env, "KAFKA="+kafka)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("the recipe: %v\n%s", err, out)
	}
	if st, _ := os.ReadFile(l.dir + "/status-kafka"); strings.TrimSpace(string(st)) != "0 0 0 0 0 0" {
		t.Errorf("the loop's exit statuses: %q, want all 0\n%s", st, out)
	}
	// Every product once on the items topic.
	f, err := os.Open(l.dir + "/items-kafka.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it struct {
			Kind    string `json:"kind"`
			URL     string `json:"url"`
			CrawlID string `json:"crawlid"`
			AppID   string `json:"appid"`
		}
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil || it.Kind != "item" || it.CrawlID != "kafka1" || it.AppID != "demo" {
			t.Fatalf("a message on the items topic is not an item of crawl kafka1 (%v): %s", err, sc.Bytes())
		}
		got[it.URL]++
	}
	truth := l.site.Truth()
	for _, p := range truth {
		if got[p.AbsURL(l.url)] != 1 {
			t.Errorf("product %s on the items topic %d times", p.URL, got[p.AbsURL(l.url)])
		}
	}
	if len(got) != len(truth) {
		t.Errorf("%d distinct products on the items topic, want %d", len(got), len(truth))
	}
	l.checkPerfect(1)
}

// startMockKafka starts a kcat whose librdkafka runs a mock Kafka cluster
// of one broker on a loopback port, and returns the broker's address; the
// process (idly consuming a topic of its own) is killed when t ends.
func startMockKafka(t *testing.T) string {
	t.Helper()
	c := exec.Command("kcat", "-b", "127.0.0.1:1", "-X", "test.mock.num.brokers=1", "-C", "-t", "mock.idle", "-o", "end", "-u")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`Mock cluster enabled: .* replaced with (\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("kcat's mock Kafka cluster did not say where it listens within 30s")
		return ""
	}
}
