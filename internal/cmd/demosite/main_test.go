package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

func TestTruthJSONL(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-truth", "-products", "60", "-seed", "7", "-base", "http://example.test:9/"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := demosite.New(demosite.Options{Products: 60, Seed: 7}).Truth()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, line := range lines {
		var p demosite.Product
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		w := want[i]
		w.URL = "http://example.test:9" + w.URL
		if p != w {
			t.Errorf("line %d: %+v, want %+v", i+1, p, w)
		}
	}
	if !strings.Contains(out.String(), " & ") {
		t.Error("JSON output escapes & (want SetEscapeHTML(false))")
	}
}

func TestTruthCSV(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-truth", "-truth-format", "csv", "-products", "40"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	records, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := demosite.New(demosite.Options{Products: 40}).Truth()
	if got := strings.Join(records[0], ","); got != "url,title,price,upc,availability,category,rating,description" {
		t.Errorf("header %q", got)
	}
	if len(records) != len(want)+1 {
		t.Fatalf("%d records, want %d", len(records), len(want)+1)
	}
	if records[1][0] != "http://127.0.0.1:8080"+want[0].URL || records[1][1] != want[0].Title {
		t.Errorf("first row %q", records[1])
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-truth", "-truth-format", "xml"},
		{"-products", "0"},
		{"-retry-after", "-1"},
		{"-retry-after", "1s"},
		{"-retry-after", "99999999999"},
		{"-broad-hosts", "-1"},
		{"-broad-hosts", "3", "-broad-pages", "0"},
		{"-nope"},
		{"extra"},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if errOut.Len() == 0 {
			t.Errorf("%q: no error message", args)
		}
	}
}

func TestServe(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-products", "30", "-ready", ready, "-retry-after", "5", "-stats-on-exit"}, io.Discard, &errOut)
	}()
	var base string
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile(ready)
		if err == nil {
			base = string(b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ready file; stderr: %s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "\n") {
		t.Fatalf("ready file %q", base)
	}
	base = strings.TrimSuffix(base, "\n")
	if !strings.Contains(errOut.String(), "demosite: serving "+base+"\n") {
		t.Errorf("stderr %q", errOut.String())
	}
	resp, err := http.Get(base + "/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Sitemap: "+base+"/sitemap.xml") {
		t.Errorf("robots.txt: %s", body)
	}
	// Product 7 answers 503 once, with the -retry-after asked for.
	resp, err = http.Get(base + "/catalogue/ancient-radio-mk-ii_7/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "5" {
		t.Errorf("product 7: %d, Retry-After %q; want 503, 5", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop")
	}
	if _, err := os.Stat(ready); !os.IsNotExist(err) {
		t.Errorf("ready file left behind: %v", err)
	}
	// -stats-on-exit: the last line of stderr is the counters.
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	var stats demosite.Stats
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &stats); err != nil || stats.Requests != 2 || stats.Failures != 1 || stats.Expected == 0 {
		t.Errorf("stats on exit: %v, %+v; stderr:\n%s", err, stats, errOut.String())
	}
}

func TestParseRetryAfter(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"none": demosite.NoRetryAfter,
		"0":    demosite.RetryAfterZero,
		"1":    time.Second,
		"120":  2 * time.Minute,
	} {
		if got, err := parseRetryAfter(in); err != nil || got != want {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestJSTruth(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-truth", "-js", "-truth-format", "csv", "-base", "http://shop.test"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	records, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := demosite.New(demosite.Options{}).JSTruth()
	if got := strings.Join(records[0], ","); got != "url,title,price,upc" {
		t.Errorf("header %q", got)
	}
	if len(records) != len(want)+1 || records[1][0] != want[0].AbsURL("http://shop.test") || records[1][3] != want[0].UPC {
		t.Errorf("%d records (first %v), want %d (first %+v)", len(records)-1, records[1], len(want), want[0])
	}
}
