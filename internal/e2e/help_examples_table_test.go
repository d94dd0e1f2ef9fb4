package e2e

import (
	"regexp"
	"strings"
)

// exampleRun says how TestHelpExamples runs one example where it does not
// run it just as the help shows it (after the rewrites every example gets,
// see rewriteExample), or checks more than it would. Without an entry an
// example runs as shown, must exit 0, and must leave its outputs
// (see outputs) not empty.
type exampleRun struct {
	// skip says why the example is not run; nothing else applies.
	skip string
	// run is what runs instead of the example's own lines.
	run string
	// prep runs first, in the example's directory, to give it what it
	// works on.
	prep string
	// status is the exit status it must have; fails: any but 0.
	status int
	fails  bool
	// untilOutput: the example runs until it is interrupted (cqueue pop
	// --follow with nothing to ack what it hands out). It gets SIGINT once it
	// has written a line, and must then exit 130.
	untilOutput bool
	// out are the files it must leave not empty ("-": stdout), where
	// outputs does not find them; noOutput: none.
	out []string
	// stdout is a regular expression its stdout must match.
	stdout string
	// stderr are lines its stderr must hold, each in order of appearance
	// ("…" in one stands for any text): the messages a document shows.
	stderr []string
	// check runs last, in its directory, its stdout in the file .stdout,
	// and must exit 0.
	check string
}

// noOutput is the out of an example that writes nothing to check: it
// says what it did on stderr, or changes a file it found.
var noOutput = []string{}

// crawled is a cqueue crawl of seeds.txt into items.csv: a header and the
// 3 products of the listing.
var crawled = exampleRun{out: []string{"items.csv"}, check: `test "$(wc -l < items.csv)" = 4`}

// helpExampleRuns are the examples run otherwise than as shown, by their
// text (as helpExample.text). An entry no example has any more fails the
// test, so that the table stays that of the examples there are. No example
// is skipped today: those naming a Redis or PostgreSQL server run against
// a real one (startServers), cqueue serve until it answers.
var helpExampleRuns = map[string]exampleRun{
	// cfetch
	"echo https://example.com/ | cfetch | jq -r .status": {stdout: `^200\n$`},
	"cfetch --resolve 'shop.test:80:127.0.0.1' <<< http://shop.test/": {
		// shop.test is the demo site's address, on its port.
		run:    `cfetch --resolve "shop.test:$SITE_PORT:127.0.0.1" <<< "http://shop.test:$SITE_PORT/"`,
		stdout: `"status":200`,
	},
	"cfetch --from-warc crawl.warc.gz | cextract -r rules.yml | cexport -o items.csv     # again, offline": {
		// The WARC file of a fetch of urls.txt.
		prep: `cfetch -q --warc crawl.warc.gz urls.txt > /dev/null`,
	},
	"cfetch --warc crawl.warc.gz urls.txt > responses.jsonl     # every exchange kept in a WARC file too": {
		out:   []string{"responses.jsonl", "crawl.warc.gz"},
		check: `test "$(zcat crawl.warc.gz | tr -d '\r' | grep -c '^WARC-Type: response$')" -ge 4`,
	},
	"cfetch --cache-dir .cache/http urls.txt > responses.jsonl     # again: no request sent": {
		// Again, answered from the cache alone.
		check: `cfetch -q --cache-dir .cache/http --cache-only urls.txt > again.jsonl && ! grep -q '"error"' again.jsonl`,
	},
	"cfetch urls.txt | jq -c 'select(.error) | {url, error, error_detail}'": {
		prep:   `echo http://127.0.0.1:1/ >> urls.txt # nothing listens there`,
		stdout: `"error":"refused"`,
	},

	// cextract
	"cextract --check shop.yml": {out: noOutput},
	"cextract --test shop.yml":  {stdout: `1 test\(s\), 1 passed, 0 failed`},
	"cextract --shell https://example.com/   # then type selectors: h1, a::attr(href), :rules shop.yml, :explain, :help": {
		// Typed lines, piped.
		run:    `printf 'h1\n:page\n' | cextract --shell "$SITE/catalogue/green-kite-2000_19/"`,
		stdout: `Green Kite 2000"\n.*status 200, html`,
	},
	"printf 'h1\\n:rules shop.yml\\n' | cextract --shell one-response.ndjson": {stdout: `"kind":"item"`},

	// cdedupe
	// cexport
	"cextract -r shop.yml responses.jsonl | cexport -r shop.yml -o items.csv": {
		check: `test "$(head -1 items.csv)" = url,title,price,upc,availability,category,rating,description`,
	},
	"cexport --type product --where '.price > 10' --fields title:Title,price:Price --csv-safe -o products.csv < items.jsonl": {
		out:   []string{"products.csv"}, // (the > in the predicate is no redirection)
		check: `head -1 products.csv | grep -qx Title,Price && test "$(wc -l < products.csv)" -ge 2`,
	},
	"cexport -o 'items-%(batch_id)05d.csv' --batch-items 1000 < items.jsonl": {
		// a few items: one batch, complete, its temporary name gone
		out:   []string{"items-00001.csv"},
		check: `test ! -e items-00002.csv && test -z "$(ls -A | grep '\.part$')"`,
	},
	"cdedupe --db seen.db --key .url < items.jsonl > unique.jsonl": {
		// items.jsonl as a crawl killed and resumed exports it: each item twice.
		prep:  `cexport -q -o export.jsonl < items.jsonl; cexport -q -o export.jsonl < items.jsonl; mv export.jsonl items.jsonl`,
		check: `test "$(wc -l < unique.jsonl)" = 2`,
	},
	"cdedupe --db seen.db --scrapy-fingerprints --namespace shop --import-seen jobdir/requests.seen < urls.txt": {
		// jobdir/requests.seen has seen the first URL only.
		check: `test "$(wc -l < .stdout)" = 3 && ! grep -q "\"url\":\"$SITE/\"" .stdout`,
	},

	// cqueue crawl: the export is OUT, the 3 products of seeds.txt's crawl.
	"cqueue crawl seeds.txt shop.yml items.csv":                                                                        crawled,
	"cqueue crawl seeds.txt shop.yml items.csv --cfetch '--concurrency 32 --delay 250ms'":                              crawled,
	"cqueue crawl seeds.txt shop.yml items.csv --cthrottle '--rate 2/s'   # per host, for every loop on this frontier": crawled,
	"cqueue crawl seeds.txt shop.yml items.jsonl --redis redis://10.0.0.5:6379/0   # on every machine": {
		prep:  `rm items.jsonl`, // a new export, not appended to the file of items there is
		out:   []string{"items.jsonl"},
		check: `test "$(wc -l < items.jsonl)" = 3`,
	},
	"cqueue crawl seeds.txt shop.yml items.csv --refresh 20h --cfetch '--cache-dir cache --cache-policy rfc9111' --cexport '--changed-only --key url'   # nightly, see docs/cron.md": crawled,

	// A budget the small crawl of seeds.txt does not reach.
	"cqueue crawl seeds.txt shop.yml items.csv --max-pages 1000 --max-time 1h   # a budget: stops at the first reached": crawled,

	"cqueue crawl seeds.txt shop.yml - --db shop.db | jq -c .data   # the items to stdout: name the frontier": {
		check: `test "$(wc -l < .stdout)" = 3`,
	},

	// cqueue push, pop and the rest on crawl.db, which holds the seed.
	"cqueue push --db crawl.db --crawlid shop --appid demo < seeds.txt": {
		prep:  `rm crawl.db`,
		out:   []string{"crawl.db"},
		check: `cqueue dump -q --db crawl.db | grep '"crawlid":"shop"' >/dev/null`,
	},
	`jq -c 'select(.kind == "request")' dump.jsonl | cqueue push --db other.db`: {
		out:   []string{"other.db"},
		check: `cqueue dump -q --db other.db | grep /category/health/ >/dev/null`,
	},
	"cqueue pop --db crawl.db --follow --window 256 --lease 10m": {untilOutput: true, status: 130},
	"cqueue reclaim --db crawl.db --all": {
		prep:   `cqueue pop -q --db crawl.db --max 1 > /dev/null`,
		stdout: `"released":1`,
	},
	"cqueue stop --db crawl.db --crawlid shop": {stdout: `"purged":1`},
	"cqueue expire --db crawl.db | jq -r .crawlid": {
		// A crawl that expires 3 s from now, and the wait for it.
		prep:   `exp=$(($(date +%s) + 3)); cqueue push -q --db crawl.db --crawlid old --appid demo --expires $exp <<< "$SITE/about.html"; while [ "$(date +%s)" -le $exp ]; do sleep 0.2; done`,
		stdout: `^old\n$`,
	},
	`cqueue dump --db crawl.db | jq -c 'select(.frontier.state == "dead")'`: {
		prep:   `cqueue pop -q --db crawl.db --max 1 | jq -c '{kind: "ack", lease, url, error: "invalid_record"}' | cqueue push -q --db crawl.db`,
		stdout: `"state":"dead"`,
	},
	"cqueue dump --db old.db | cqueue push --db new.db": {
		out:   []string{"new.db"},
		check: `cqueue dump -q --db new.db | grep /category/health/ >/dev/null`,
	},
	"export CQUEUE_SERVE_TOKEN=$(openssl rand -hex 16)\ncqueue serve --redis redis://10.0.0.5:6379/0 --listen 0.0.0.0:8077": {
		prep: `cqueue push -q --redis "$REDIS" --crawlid shop --appid demo < seeds.txt`,
	},
}

var (
	exampleSite = regexp.MustCompile(`https?://example\.com`)
	serveListen = regexp.MustCompile(`(--listen\s+\S+):8077\b`)
	popStore    = regexp.MustCompile(`^\s*cqueue pop((?:\s+--(?:db|redis)\s+\S+)?)`)
	stageSep    = regexp.MustCompile(`[|;&\n]`)
)

// rewriteExample points an example at the test's servers, as the README's
// test points 127.0.0.1:8080 at the demo site: a URL of example.com is the
// demo site's; "| …" at the end of a line, "and so on", is the rest of the
// crawl loop (cextract -r shop.yml | cexport -o items.csv, and after cqueue
// pop, a cqueue push on its frontier); cqueue serve listens on a free port.
// The servers of redis:// and postgres:// URLs are startServers'.
func rewriteExample(text, site string) string {
	text = exampleSite.ReplaceAllLiteralString(text, site)
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		head, ok := strings.CutSuffix(uncomment(line), "| …")
		if ok {
			rest := "| cextract -r shop.yml | cexport -o items.csv"
			if m := popStore.FindStringSubmatch(head); m != nil {
				rest += " | cqueue push" + m[1]
			}
			line = head + rest
		}
		if strings.Contains(line, "cqueue serve") {
			if serveListen.MatchString(line) {
				line = serveListen.ReplaceAllString(line, "$1:0")
			} else {
				line = strings.Replace(line, "cqueue serve", "cqueue serve --listen 127.0.0.1:0", 1)
			}
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// needsDB says whether an example runs a cqueue subcommand (other than
// crawl, which has a frontier of its own) without naming the frontier:
// it relies on $CRAWLUTILS_DB, which the test then sets to crawl.db.
func needsDB(text string) bool {
	for _, stage := range stageSep.Split(text, -1) {
		f := strings.Fields(stage)
		if len(f) >= 2 && f[0] == "cqueue" && f[1] != "crawl" &&
			!strings.Contains(stage, "--db") && !strings.Contains(stage, "--redis") {
			return true
		}
	}
	return false
}
