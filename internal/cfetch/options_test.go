package cfetch

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(o *Options)
		want   string
	}{
		{"defaults", func(o *Options) {}, ""},
		{"concurrency 0", func(o *Options) { o.Concurrency = 0 }, "--concurrency must be between 1 and 10000 (got 0)"},
		{"timeout 0", func(o *Options) { o.Timeout = 0 }, "--timeout must be a positive duration"},
		{"connect timeout", func(o *Options) { o.ConnectTimeout = -time.Second }, "--connect-timeout must be a positive duration"},
		{"max size", func(o *Options) { o.MaxSize = -1 }, "--max-size must be a size such as 32MiB, or 0 for no limit"},
		{"retries", func(o *Options) { o.Retries = -1 }, "--retries must be between 0 and 100 (got -1)"},
		{"retries_absurd", func(o *Options) { o.Retries = 101 }, "--retries must be between 0 and 100 (got 101)"},
		{"retry codes", func(o *Options) { o.RetryCodes = []int{503, 700} }, "--retry-codes must list HTTP statuses between 100 and 599 (got 700)"},
		{"redirects", func(o *Options) { o.MaxRedirects = -2 }, "--max-redirects must be 0 or more"},
		{"header", func(o *Options) { o.Headers = http.Header{"Bad Name": {"v"}} }, `--header: invalid header name "Bad Name"`},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		tt.change(&o)
		err := o.Validate()
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	opts, files, code, done := parseFlags([]string{"-c", "3", "-H", "Accept-Language: de, en;q=0.5", "-H", "x-a:", "--max-size", "2MiB", "--no-redirects", "--retry-codes", "500,503", "-k", "f1", "-"}, &stderr)
	if done {
		t.Fatalf("done with %d: %s", code, stderr.String())
	}
	if opts.Concurrency != 3 || opts.MaxSize != 2<<20 || opts.FollowRedirects || !opts.Insecure ||
		opts.Headers.Get("Accept-Language") != "de, en;q=0.5" || len(opts.Headers["X-A"]) != 1 ||
		len(opts.RetryCodes) != 2 || strings.Join(files, " ") != "f1 -" {
		t.Errorf("opts %+v files %v", opts, files)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", "0"}, "cfetch: --concurrency must be between 1 and 10000 (got 0)\nTry 'cfetch --help'"},
		{[]string{"-H", "no colon"}, `cfetch: --header: "no colon": want "Name: value"`},
		{[]string{"--max-size", "lots"}, `invalid size "lots"`},
		{[]string{"--max-memory", "-1G"}, `invalid argument "-1G" for "--max-memory" flag: invalid size "-1G": negative`},
		{[]string{"--timeout", "0s"}, "--timeout must be a positive duration"},
	} {
		stderr.Reset()
		_, _, code, done := parseFlags(tt.args, &stderr)
		if !done || code != cli.ExitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: done %v code %d stderr %q, want %q", tt.args, done, code, stderr.String(), tt.want)
		}
	}
}

func TestHelpShowsScrapyNamesAndExamples(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := execute(t.Context(), []string{"--help"}, strings.NewReader(""), &out, new(bytes.Buffer)); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"echo https://example.com/ | cfetch | jq -r .status", "CONCURRENT_REQUESTS", "DOWNLOAD_MAXSIZE", "RETRY_HTTP_CODES", "--max-size size", "--max-memory size", "130  interrupted"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1048576", 1 << 20, true}, {"32MiB", 32 << 20, true}, {"32m", 32 << 20, true},
		{"1.5 KiB", 1536, true}, {"10MB", 10e6, true}, {"2g", 2 << 30, true}, {"512b", 512, true},
		{"", 0, false}, {"MiB", 0, false}, {"-1", 0, false}, {"-1KiB", 0, false}, {"lots", 0, false},
		{"1e3", 0, false}, {"0x10", 0, false}, {"NaN", 0, false}, {"99999999999GiB", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("parseSize(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	for _, n := range []int64{0, 1, 1023, 1024, 32 << 20, 3 << 30, 1<<20 + 1} {
		if got, err := parseSize(formatSize(n)); got != n || err != nil {
			t.Errorf("formatSize(%d) = %q reads back as %d", n, formatSize(n), got)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"32MiB", "1.5k", "10MB", "0", "-1", "1e308g", "  7 B "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("parseSize(%q) = %d", s, n)
		}
		if back, err := parseSize(formatSize(n)); back != n || err != nil {
			t.Fatalf("%d formats as %q, reads back as %d (%v)", n, formatSize(n), back, err)
		}
	})
}

func TestParseHeader(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, name, value, err string }{
		{"Accept: text/html", "Accept", "text/html", ""},
		{"x-custom:  a: b ", "X-Custom", "a: b", ""},
		{"Empty:", "Empty", "", ""},
		{"no colon", "", "", `want "Name: value"`},
		{": v", "", "", "invalid header name"},
		{"Bad Name: v", "", "", "invalid header name"},
		{"X: a\x00b", "", "", "invalid value"},
	}
	for _, tt := range tests {
		name, value, err := parseHeader(tt.in)
		if name != tt.name || value != tt.value || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("parseHeader(%q) = %q %q %v", tt.in, name, value, err)
		}
	}
}

func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"Accept: text/html", "a:b:c", ":", "X: \x7f", "Host: h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, value, err := parseHeader(s)
		if err != nil {
			return
		}
		h := http.Header{}
		h.Set(name, value)
		var buf bytes.Buffer
		if err := h.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if checkHeader(name, []string{value}) != nil {
			t.Fatalf("accepted %q as %q: %q but checkHeader refuses it", s, name, value)
		}
	})
}

func TestFlattenHeaders(t *testing.T) {
	t.Parallel()
	h := http.Header{"Set-Cookie": {"a=1", "b=2, x"}, "Vary": {"Accept", "Cookie"}, "Content-Type": {"text/html"}}
	got := flattenHeaders(h)
	if got["set-cookie"] != "a=1\nb=2, x" || got["vary"] != "Accept, Cookie" || got["content-type"] != "text/html" || len(got) != 3 {
		t.Errorf("flattenHeaders = %q", got)
	}
	if flattenHeaders(nil) != nil {
		t.Error("no headers should give nil")
	}
}

// TestMaxMemoryDefault: a quarter of the machine's memory, at most 1 GiB;
// 1 GiB where /proc/meminfo cannot say.
func TestMaxMemoryDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		meminfo string
		want    int64
	}{
		{"MemTotal:        2048000 kB\nMemFree: 1 kB\n", 2048000 << 10},
		{"MemFree: 1 kB\nMemTotal:       24683656 kB\n", 24683656 << 10},
		{"MemTotal: lots kB\n", 0},
		{"MemTotal: 5 MB\n", 0},
		{"", 0},
	} {
		path := filepath.Join(dir, "meminfo")
		if err := os.WriteFile(path, []byte(tt.meminfo), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := physicalMemory(path); got != tt.want {
			t.Errorf("physicalMemory(%q) = %d, want %d", tt.meminfo, got, tt.want)
		}
	}
	if got := physicalMemory(filepath.Join(dir, "none")); got != 0 {
		t.Errorf("no file: %d, want 0", got)
	}
	got, total := DefaultOptions().MaxMemory, physicalMemory("/proc/meminfo")
	if want := min(int64(1<<30), total/4); total == 0 && got != 1<<30 || total > 0 && got != want {
		t.Errorf("default --max-memory %d with %d bytes of memory", got, total)
	}
}
