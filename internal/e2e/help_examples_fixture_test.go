package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/pgtest"
	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/jackc/pgx/v5"
)

// exampleFilesScript makes the files the --help examples name, with the
// commands themselves, as a user would have made them: rules, seeds and
// URLs of the demo site at $SITE, a frontier with the seeds queued (as
// cqueue push's example makes it), fetched responses and extracted items.
const exampleFilesScript = `set -e
cp "$RULES" shop.yml
cp "$RULES" rules.yml
cp -r "$(dirname "$RULES")/demo.tests" demo.tests # the page of its tests:
# A seed whose crawl is a few pages: a listing and its products.
printf '{"url":"%s/category/health/","maxdepth":1}\n' "$SITE" > seeds.txt
printf '%s\n' "$SITE/" "$SITE/category/health/" "$SITE/catalogue/green-kite-2000_19/" "$SITE/p/4" > urls.txt
printf '{"kind":"request","url":"%s"}\n' "$SITE/category/health/" "$SITE/catalogue/green-kite-2000_19/" > requests.jsonl
cqueue push -q --db crawl.db --crawlid shop --appid demo < seeds.txt
cp crawl.db old.db
cqueue dump -q --db crawl.db > dump.jsonl
cfetch -q urls.txt > responses.ndjson
cp responses.ndjson responses.jsonl
grep -m1 '"url":"[^"]*/catalogue/' responses.ndjson > one-response.ndjson
cextract -q -r shop.yml responses.ndjson | grep '"kind":"item"' > items.jsonl
# A Scrapy JOBDIR's requests.seen that has seen the first URL of urls.txt.
mkdir jobdir
head -1 urls.txt | cdedupe -q --db scrapy.db --scrapy-fingerprints --namespace shop --export-seen jobdir/requests.seen > /dev/null
rm -f scrapy.db*
`

// makeExampleFiles runs exampleFilesScript in a new directory and returns it.
func makeExampleFiles(t *testing.T, bin, site string) string {
	t.Helper()
	dir := t.TempDir()
	rules, err := filepath.Abs("../../testdata/rules/demo.yml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", exampleFilesScript)
	cmd.Dir = dir
	cmd.Env = append(exampleEnv(bin, dir), "SITE="+site, "RULES="+rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making the examples' files: %v\n%s", err, out)
	}
	return dir
}

// exampleEnv is the environment of an example run in dir: the commands
// (the test binary) first on PATH, no settings of the user's (no
// CRAWLUTILS_*, CFETCH_*, … variables; HOME is dir, so no config file).
func exampleEnv(bin, dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "PATH" || name == "HOME" || name == "CRAWLUTILS_CONFIG" || ownSetting(name) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+bin+":"+os.Getenv("PATH"), "HOME="+dir, "GORACE=atexit_sleep_ms=0")
}

// ownSetting says whether the variable name sets a crawlutils command.
func ownSetting(name string) bool {
	if strings.HasPrefix(name, "CRAWLUTILS_") {
		return true
	}
	for _, tool := range tools {
		if strings.HasPrefix(name, strings.ToUpper(tool)+"_") {
			return true
		}
	}
	return false
}

var (
	redisURL    = regexp.MustCompile(`redis://[^\s'"]+`)
	postgresURL = regexp.MustCompile(`postgres://[^\s'"]+`)
)

// startServers starts the servers an example names, other than the demo
// site: a real redis-server for a redis:// URL, a real PostgreSQL server
// (with the example's user and database) for a postgres:// URL. Each is the
// example's own. It returns the example's text pointed at them, and their
// URLs as variables for its prep and check scripts (REDIS, POSTGRES). Where
// a server is not installed the example is skipped (or fails under CI).
func startServers(t *testing.T, text string) (string, []string) {
	t.Helper()
	var env []string
	if redisURL.MatchString(text) {
		u := redistest.Start(t)
		text = redisURL.ReplaceAllLiteralString(text, u)
		env = append(env, "REDIS="+u)
	}
	if m := postgresURL.FindString(text); m != "" {
		u := startPostgres(t, m)
		text = strings.ReplaceAll(text, m, u)
		env = append(env, "POSTGRES="+u)
	}
	return text, env
}

// startPostgres starts a server with the user and database the example's
// URL names and returns the URL pointed at it.
func startPostgres(t *testing.T, example string) string {
	t.Helper()
	want, err := url.Parse(example)
	if err != nil {
		t.Fatalf("%s: %v", example, err)
	}
	srv := pgtest.StartWith(t, pgtest.Options{})
	ctx := context.Background()
	c, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	user, db := want.User.Username(), strings.TrimPrefix(want.Path, "/")
	var setup []string
	if user != "" && user != "postgres" {
		setup = append(setup, fmt.Sprintf("CREATE ROLE %s LOGIN", pgx.Identifier{user}.Sanitize()))
	} else {
		user = "postgres"
	}
	if db != "" && db != "postgres" {
		setup = append(setup, fmt.Sprintf("CREATE DATABASE %s OWNER %s", pgx.Identifier{db}.Sanitize(), pgx.Identifier{user}.Sanitize()))
	}
	for _, q := range setup {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	want.Host = fmt.Sprintf("127.0.0.1:%d", srv.Port)
	return want.String()
}
