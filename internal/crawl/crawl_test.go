package crawl

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSplitArgs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"  --concurrency 32\t--delay=250ms ", []string{"--concurrency", "32", "--delay=250ms"}, ""},
		{`--user-agent "mybot/1.0 (+https://example.com/bot)"`, []string{"--user-agent", "mybot/1.0 (+https://example.com/bot)"}, ""},
		{`--allow '/p/\d+$' --deny "a\"b\\c\$d"`, []string{"--allow", `/p/\d+$`, "--deny", `a"b\c$d`}, ""},
		{`a\ b c\\d "x"'y'z ''`, []string{"a b", `c\d`, "xyz", ""}, ""},
		{"--header \"A: 1\" \\\n --x", []string{"--header", "A: 1", "--x"}, ""},
		{`"cost $" 100$`, []string{"cost $", "100$"}, ""}, // a $ that expands nothing
		{`price=$5`, nil, "$5 is not expanded here"},
		{`--user-agent $UA`, nil, "$UA is not expanded here"},
		{`--x "${HOME}/a"`, nil, "${HOME}/a is not expanded here"},
		{"--x `date`", nil, "`date` is not expanded here"},
		{`--x $(date)`, nil, "$(date) is not expanded here"},
		{`--concurrency 32 | tee`, nil, "| is not run by a shell here"},
		{`--x > out`, nil, "> is not run by a shell here"},
		{`--x '`, nil, "unterminated ' quote"},
		{`--x "a`, nil, `unterminated " quote`},
		{`--x \`, nil, "a backslash at the end"},
	} {
		got, err := splitArgs(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("splitArgs(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("splitArgs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestCheckPassThrough(t *testing.T) {
	reserved := func(flag string) map[string]string {
		for _, pt := range passThrough {
			if pt.flag == flag {
				return pt.reserved
			}
		}
		t.Fatalf("no --%s", flag)
		return nil
	}
	for _, tt := range []struct {
		flag  string
		words []string
		err   string
	}{
		{"cfetch", []string{"--concurrency", "32", "--per-host=4"}, ""},
		{"cfetch", []string{"-q"}, "--cfetch: -q is not for here"},
		{"cfetch", []string{"--stats=x.json"}, "--cfetch: --stats=x.json is not for here: cqueue crawl reads every tool's stats"},
		{"cextract", []string{"-r", "other.yml"}, "the rules are cqueue crawl's RULES"},
		{"cexport", []string{"-f", "csv", "--fields", "a,b"}, ""},
		{"cexport", []string{"-O", "x.csv"}, "remove OUT to start over"},
		{"cexport", []string{"-o", "x.csv"}, "connected by pipes"},
		{"cexport", []string{"--rules=other.yml"}, "the rules are cqueue crawl's RULES"},
		{"cexport", []string{"--changed-only", "--gone", "1"}, "cqueue crawl runs cexport --gone ROUND itself"},
		{"cextract", []string{"--test", "shop.yml"}, "it does not crawl"},
		{"pop", []string{"--window", "64", "--max", "10"}, ""},
		{"pop", []string{"--db", "x.db"}, "the frontier is cqueue crawl's --db or --redis"},
		{"push", []string{"--order", "lifo"}, "give it to cqueue crawl"},
		{"push", []string{"--batch", "100"}, ""},
	} {
		err := checkPassThrough(tt.flag, reserved(tt.flag), tt.words)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("--%s %q: %v, want %q", tt.flag, tt.words, err, tt.err)
		}
	}
}

func TestDefaultCrawlID(t *testing.T) {
	for _, tt := range []struct{ out, dsn, want string }{
		{"items.csv", "items.csv.db", "items"},
		{"out/products.jsonl", "x.db", "products"},
		{"-", "crawls/shop.db", "shop"},
		{"noext", "noext.db", "noext"},
		{".csv", ".csv.db", ".csv"},
	} {
		if got := defaultCrawlID(tt.out, tt.dsn); got != tt.want {
			t.Errorf("defaultCrawlID(%q, %q) = %q, want %q", tt.out, tt.dsn, got, tt.want)
		}
	}
}

// TestIdentityConflicts: what a rerun is refused for names the file the
// crawl was started with and this run's, with their hashes.
func TestIdentityConflicts(t *testing.T) {
	id := identity{rules: "demo.yml", rulesSHA: "1a2b3c4d5e6f", seeds: "seeds.txt", seedsSHA: "99887766", seedCount: 2, out: "items.csv"}
	if c := id.conflicts("items", id.meta(t0())); len(c) != 0 {
		t.Fatalf("the same run conflicts with itself: %q", c)
	}
	if c := id.conflicts("items", map[string]string{}); len(c) != 0 {
		t.Fatalf("a crawl with no metadata conflicts: %q", c)
	}
	old := id
	old.rules, old.rulesSHA = "demo-typo.yml", "ffff0000aaaa"
	old.seeds, old.seedsSHA, old.seedCount = "-", "00001111", 1
	c := id.conflicts("items", old.meta(t0()))
	if len(c) != 2 {
		t.Fatalf("conflicts = %q", c)
	}
	if want := `crawl "items" was started with rules demo-typo.yml (sha256 ffff0000…); this run has other rules (demo.yml, sha256 1a2b3c4d…): use --force to go on with them, or another --crawlid`; c[0] != want {
		t.Errorf("rules conflict:\n%s\nwant\n%s", c[0], want)
	}
	if want := `crawl "items" was started with seeds <stdin> (1 seed(s), sha256 00001111…); this run has other seeds (seeds.txt: 2 seed(s), sha256 99887766…): use --force to add them to the crawl, or another --crawlid`; c[1] != want {
		t.Errorf("seeds conflict:\n%s\nwant\n%s", c[1], want)
	}
}

func t0() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC) }
