package e2e

// docExampleRuns are the examples of the documents' ```sh blocks run
// otherwise than as shown, or not run (skip says why), by their text (as
// helpExample.text). An entry no example has any more fails the test.
var docExampleRuns = map[string]exampleRun{
	// README.md
	"export CRAWLUTILS_DB=crawl.db     # the shared state: the frontier, and the throttle's schedule\ncqueue push https://books.toscrape.com/   # the seeds (or a file of URLs): the loop's first requests\ncqueue pop --follow | cthrottle --rate 2/s | cfetch | cextract -r rules.yml | cexport -r rules.yml -o items.csv | cqueue push": {
		skip: "TestREADMELoop runs it (the whole demo shop at 2/s: a minute)",
	},
	"go install ./cmd/...          # from a clone; puts cfetch, cextract, cexport, cqueue, cdedupe, cthrottle in $(go env GOPATH)/bin": {
		skip: "builds the tools from a clone: the tests run that build",
	},
	"scripts/demo.sh     # crawl the bundled demo shop offline into out/products.csv, check it, print a summary\ngo test ./...       # the fast tier: unit tests and command cases, cached; under 2 minutes on 2 cores\nscripts/test.sh     # the whole test suite (gofmt, go vet, staticcheck, go test -race, integration tests); 20-40 minutes on 2 cores": {
		skip: "the test suite itself, and scripts/demo.sh, which CI runs",
	},
	"go run ./internal/cmd/demosite &      # the demo shop on http://127.0.0.1:8080\nSITE=http://127.0.0.1:8080": {
		skip: "starts the demo site, which the test serves itself (internal/demosite)",
	},
	"cqueue pop --follow | cfetch | cextract -r rules.yml | cexport -r rules.yml -o items.csv | cqueue push": {
		out: []string{"items.csv"}, check: `test "$(wc -l < items.csv)" = 4`,
	},

	// docs/cexport.md
	"sqlite3 -header shop.db 'SELECT * FROM books'": {
		skip: "reads the table of the items the paragraph above it describes, not a file an example makes",
	},
	"cexport -o 'postgres://crawler@127.0.0.1:5432/shop?table=books' --key url --alter < items.jsonl\npsql 'postgres://crawler@127.0.0.1:5432/shop' -c 'SELECT url, title, price FROM books'": {
		// psql reads the database of the server the test started.
		run:    "cexport -o 'postgres://crawler@127.0.0.1:5432/shop?table=books' --key url --alter < items.jsonl\npsql \"${POSTGRES%%\\?*}\" -c 'SELECT url, title, price FROM books'",
		out:    []string{"-"},
		stdout: `\(2 rows\)`,
	},

	// docs/cqueue.md: RULES with a sitemap rule, as the section says they must be.
	"cqueue crawl --discover robots,sitemaps seeds.txt shop.yml items.csv": {
		prep: `printf "sitemaps:\n  - allow: '/catalogue/'\n" >> shop.yml`,
		// The 4 pages of the seed's crawl, and the 4 files --discover
		// queued: robots.txt, sitemap.xml and the sitemaps it lists (their
		// pages are deeper than maxdepth).
		out:    []string{"items.csv"},
		stderr: []string{`cqueue: crawl "items": 8 pages in …`},
	},

	// docs/cexport.md: a batch file in out/, named by the template.
	"mkdir -p out\ncexport -o 'out/items-%(batch_id)05d-%(batch_time)s.jsonl.gz' --batch-items 10000 --batch-seconds 300 items.jsonl": {
		out:   noOutput,
		check: `test "$(zcat out/items-00001-*.jsonl.gz | wc -l)" = "$(wc -l < items.jsonl)"`,
	},

	// docs/cfetch.md: every link of one page (cthrottle's default pace is
	// 1 request a second to a host: the seeds' crawl would be 20 s).
	"cqueue pop --follow | cthrottle | cfetch | cextract --links -f title=h1 | cexport -o items.jsonl | cqueue push": {
		prep:  `rm crawl.db; printf '{"url":"%s/catalogue/green-kite-2000_19/","allow_regex":["/green-kite-2000_19/$"]}\n' "$SITE" | cqueue push -q --db crawl.db`,
		check: `grep -q '"title":"東京の風鈴 Green Kite 2000"' items.jsonl`,
	},

	// docs/cron.md: the first night, on a frontier of its own.
	"cqueue crawl seeds.txt shop.yml 'sqlite:shop.db?table=products' --db crawl.db --cfetch '--cache-dir cache --cache-policy rfc9111' --cexport '--key url --changed-only --history'": {
		prep:  `rm crawl.db`,
		out:   []string{"shop.db"},
		check: `test "$(sqlite3 shop.db 'SELECT count(*) FROM products')" = 3`,
	},

	// docs/cfetch.md
	"cfetch --resolve '*:8080:127.0.0.1' <<< http://shop.test:8080/": {
		// shop.test is the demo site, on its port.
		run:    `cfetch --resolve "*:$SITE_PORT:127.0.0.1" <<< "http://shop.test:$SITE_PORT/"`,
		stdout: `"status":200`,
	},
	"cfetch urls.txt | jq -c 'select(.error) | {url, error, error_detail}'": {
		prep:   `echo http://127.0.0.1:1/ >> urls.txt # nothing listens there`,
		stdout: `"error":"refused"`,
	},

	// docs/cron.md: shop.db as the nightly crawl above them leaves it.
	"sqlite3 shop.db \"SELECT url, price, changed_at FROM products_history WHERE url LIKE '%blue-widget_17%' ORDER BY changed_at\"": {
		prep: `cqueue crawl -q seeds.txt shop.yml 'sqlite:shop.db?table=products' --db crawl2.db --cexport '--key url --changed-only --history' > /dev/null`,
		out:  noOutput,
	},
	"sqlite3 shop.db \"SELECT url, last_seen, round FROM products_history WHERE change = 'gone'\"": {
		prep: `cqueue crawl -q seeds.txt shop.yml 'sqlite:shop.db?table=products' --db crawl2.db --cexport '--key url --changed-only --history' > /dev/null`,
		out:  noOutput,
	},

	// docs/distributed.md
	"R='redis+cluster://10.0.0.5:7000,10.0.0.6:7000,10.0.0.7:7000'\ncqueue push --redis \"$R\" --crawlid shop < seeds.txt            # once, from anywhere\ncqueue pop --redis \"$R\" --follow | cthrottle --redis \"$R\" --rate 2/s | cfetch --throttle-redis \"$R\" | cextract -r shop.yml | cexport -r shop.yml -o items.csv | cqueue push --redis \"$R\"": {
		skip: "a Redis Cluster: the test starts single servers (internal/redistest)",
	},
	"cqueue info --redis redis://127.0.0.1:7000/0": {
		skip: "a node of a Redis Cluster",
	},
	"cqueue info --redis redis+cluster://127.0.0.1:6379": {
		skip: "a plain Redis server on port 6379",
	},
	"cqueue info --redis redis://127.0.0.1:8080/0": {
		// The web server is the demo site (the URL is spelt so that the
		// test starts no Redis server for it).
		run:    `s=redis; cqueue info --redis "$s://127.0.0.1:$SITE_PORT/0"`,
		fails:  true,
		out:    noOutput,
		stderr: []string{`cqueue: frontier: open: Redis at 127.0.0.1:… (db 0) does not answer as Redis does: is it a Redis server? (redis: can't parse map reply: "HTTP/1.1 400 Bad Request")`},
	},
	"cqueue pop --redis redis://10.0.0.5:6379/0 --follow": {
		skip: "a Redis server with EVAL renamed in its redis.conf",
	},
	"export CRAWLUTILS_REDIS='redis+cluster://10.0.0.5:7000,10.0.0.6:7000,10.0.0.7:7000?shards=12'\ncqueue crawl seeds.txt shop.yml items.csv --crawlid shop      # on every machine, as above": {
		skip: "a Redis Cluster",
	},
	"cqueue info --redis 'redis://127.0.0.1:6379/0?shards=2'": {
		skip: "a Redis server whose keys a crawl split into 3 shards",
	},
	"cqueue pop --redis \"$R\" --follow": {
		skip: "a Redis Cluster with a slot not served",
	},
	"K=kafka1:9092,kafka2:9092\nexport CRAWLUTILS_REDIS='redis+cluster://10.0.0.5:7000,10.0.0.6:7000,10.0.0.7:7000'": {
		skip: "Kafka and a Redis Cluster (TestKafkaRecipe runs a copy of the recipe on one Redis)",
	},
	"kcat -b \"$K\" -G crawlutils-feeder -u -q demo.incoming | cqueue push -q --crawl-mode": {
		skip: "a Kafka broker (TestKafkaRecipe runs a copy of the recipe)",
	},
	"cqueue pop --follow | cthrottle --rate 2/s | cfetch | cextract -r shop.yml | cqueue push | jq -c --unbuffered 'select(.kind == \"item\")' | kcat -b \"$K\" -P -t demo.crawled_firehose": {
		skip: "a Kafka broker (TestKafkaRecipe runs a copy of the recipe)",
	},
	"echo '{\"url\": \"https://shop.example/\", \"appid\": \"shop\", \"crawlid\": \"shop-2026-11\", \"maxdepth\": 3}' | kcat -b \"$K\" -P -t demo.incoming": {
		skip: "a Kafka broker (TestKafkaRecipe runs a copy of the recipe)",
	},
	"cqueue pop --follow | cfetch | cextract -r shop.yml | cexport -o items.jsonl | cqueue push\ntail -n +1 -F items.jsonl | kcat -b \"$K\" -P -t demo.crawled_firehose": {
		skip: "a Kafka broker, and tail -F runs until it is stopped",
	},
	"kcat -b \"$K\" -C -t demo.incoming -o beginning -u -q | cqueue push -q --crawl-mode": {
		skip: "a Kafka broker",
	},

	// docs/frontier.md: back is a FIFO, not an output; the items go to stdout.
	"mkfifo back\ncqueue push --db crawl.db < back &\ncqueue pop --db crawl.db --follow | cfetch | cextract -r rules.yml | cexport -f jsonl -o /dev/fd/3 3>&1 >back\nwait": {
		out: []string{"-"},
	},

	// docs/monitor.md
	"cqueue serve --redis redis://10.0.0.5:6379/0 --listen 0.0.0.0:8077 --token \"$CQUEUE_SERVE_TOKEN\"": {
		// With the token of the paragraph above it.
		run: "export CQUEUE_SERVE_TOKEN=$(openssl rand -hex 16)\ncqueue serve --redis redis://10.0.0.5:6379/0 --listen 0.0.0.0:0 --token \"$CQUEUE_SERVE_TOKEN\"",
	},
	"export CQUEUE_SERVE_TOKEN=$(openssl rand -hex 16)\ncqueue serve --db items.csv.db --allow-control": {
		prep: `cqueue crawl -q seeds.txt shop.yml items.csv > /dev/null`,
	},
	"curl -s -X POST -H 'Content-Type: application/json' -H \"Authorization: Bearer $CQUEUE_SERVE_TOKEN\" -d '{\"crawlid\":\"shop\"}' http://127.0.0.1:8077/api/v1/stop": {
		skip: "a cqueue serve --allow-control on port 8077 (internal/monitor's tests POST /api/v1/stop)",
	},

	// docs/throttle.md: two loops on one Redis, at once.
	"cqueue pop --redis $R --follow | cthrottle --redis $R --rate 2/s | cfetch --throttle-redis $R | …\ncqueue pop --redis $R --follow | cthrottle --redis $R --rate 2/s | cfetch --throttle-redis $R | …": {
		run: `R=redis://10.0.0.5:6379/0
cqueue push -q --redis $R < seeds.txt
cqueue pop --redis $R --follow | cthrottle --redis $R --rate 2/s | cfetch --throttle-redis $R | cextract -r shop.yml | cexport -o a.jsonl | cqueue push --redis $R &
a=$!
cqueue pop --redis $R --follow | cthrottle --redis $R --rate 2/s | cfetch --throttle-redis $R | cextract -r shop.yml | cexport -o b.jsonl | cqueue push --redis $R &
b=$!
wait $a
wait $b`,
		out:   noOutput,
		check: `test "$(cat a.jsonl b.jsonl | wc -l)" = 3`,
	},

	// docs/warc.md
	"cqueue crawl seeds.txt shop.yml items.csv --cfetch '--warc shop.warc.gz' --cextract '--warc-outlinks links.warc.gz'": {
		skip: "TestWARCRoundTrip runs docs/warc.md's block",
	},
	"cfetch --from-warc shop*.warc.gz | cextract -r new-shop.yml | cexport -o items-v2.csv": {
		skip: "TestWARCRoundTrip runs docs/warc.md's block",
	},
}
