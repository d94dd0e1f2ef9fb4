package cextract

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/record"
)

func run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runEnv(t, nil, stdin, args...)
}

// runEnv is run with the environment vars.
func runEnv(t *testing.T, vars map[string]string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = executeEnv(context.Background(), vars, args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// response builds a response record line.
func response(t testing.TB, url, body string, req map[string]any, extra map[string]any) string {
	t.Helper()
	m := map[string]any{"kind": "response", "url": url, "status": 200, "body": body, "fetched_at": "2024-05-01T10:00:00Z"}
	if req != nil {
		m["request"] = req
	}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func kinds(out string) string {
	var ks []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		env, _ := record.Parse([]byte(line))
		ks = append(ks, env.Kind)
	}
	return strings.Join(ks, ",")
}

func TestFollowUpRequestsInheritTheCrawl(t *testing.T) {
	t.Parallel()
	parent := map[string]any{
		"kind": "request", "url": "https://a.example/start", "priority": 50, "depth": 2, "maxdepth": 5,
		"crawlid": "c1", "appid": "app", "spiderid": "link", "allowed_domains": []string{"a.example"},
		"allow_regex": []string{"/p/"}, "deny_regex": []string{"logout"}, "deny_extensions": []string{"pdf"},
		"expires": 1900000000, "useragent": "bot/1", "attrs": map[string]any{"k": []int{1, 2}, "big": json.Number("12345678901234567890")},
		"lease": "L-1", "headers": map[string]string{"Cookie": "secret"}, "method": "POST", "dont_filter": true, "custom": "x",
		"link_kind": "resources", "source": "img@src", // the parent's own: not inherited
	}
	in := response(t, "https://a.example/final", `<a href="/p/1">1</a>`, parent, nil)
	out, stderr, code := run(t, in, "--links")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := `{"kind":"request","url":"https://a.example/p/1","priority":40,"depth":3,"referer":"https://a.example/final",` +
		`"crawlid":"c1","appid":"app","spiderid":"link","maxdepth":5,"allowed_domains":["a.example"],"allow_regex":["/p/"],` +
		`"deny_regex":["logout"],"deny_extensions":["pdf"],"expires":1900000000,"useragent":"bot/1","attrs":{"big":12345678901234567890,"k":[1,2]},` +
		`"link_kind":"navigation","source":"a@href"}`
	if len(lines) != 2 || lines[0] != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	if lines[1] != `{"kind":"ack","lease":"L-1","url":"https://a.example/start","crawlid":"c1"}` {
		t.Fatalf("ack = %s", lines[1])
	}
}

func TestPriorityDecaysAndDepthGrows(t *testing.T) {
	t.Parallel()
	in := response(t, "https://a.example/", `<a href="/x">x</a>`, map[string]any{"url": "https://a.example/"}, nil)
	out, _, _ := run(t, in, "--links")
	var r record.Request
	if err := record.Decode([]byte(strings.TrimSpace(out)), &r); err != nil {
		t.Fatal(err)
	}
	if r.Priority != -10 || r.Depth != 1 {
		t.Fatalf("priority %d depth %d, want -10 and 1", r.Priority, r.Depth)
	}
}

func TestMaxDepth(t *testing.T) {
	t.Parallel()
	body := `<a href="/1">1</a><a href="/2">2</a>`
	atLimit := response(t, "https://a.example/", body, map[string]any{"url": "u", "depth": 3, "maxdepth": 3, "lease": "L"}, nil)
	below := response(t, "https://a.example/", body, map[string]any{"url": "u", "depth": 2, "maxdepth": 3}, nil)
	unlimited := response(t, "https://a.example/", body, map[string]any{"url": "u", "depth": 99}, nil)
	out, stderr, code := run(t, atLimit+"\n"+below+"\n"+unlimited+"\n", "--links")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := kinds(out); got != "ack,request,request,request,request" {
		t.Fatalf("kinds = %s\n%s", got, out)
	}
	if !strings.Contains(stderr, "2 dropped (max_depth 2)") {
		t.Fatalf("summary: %s", stderr)
	}
}

func TestOrderItemsThenLinksThenAck(t *testing.T) {
	t.Parallel()
	body := `<h1>T</h1><div class="p">a</div><div class="p">b</div><a href="/n">n</a>`
	req := map[string]any{"url": "https://a.example/", "lease": "L1", "crawlid": "c", "attrs": map[string]any{"x": 1}}
	in := response(t, "https://a.example/", body, req, nil)
	out, _, code := run(t, in, "--each", "div.p", "-f", "v=::text", "--links", "--type", "thing")
	if code != 0 {
		t.Fatal(code)
	}
	if got := kinds(out); got != "item,item,request,ack" {
		t.Fatalf("kinds = %s", got)
	}
	first := strings.SplitN(out, "\n", 2)[0]
	want := `{"kind":"item","type":"thing","data":{"v":"a"},"url":"https://a.example/","crawlid":"c","attrs":{"x":1},"fetched_at":"2024-05-01T10:00:00Z"}`
	if first != want {
		t.Fatalf("item =\n%s\nwant\n%s", first, want)
	}
}

func TestFailedResponsesGiveOnlyTheirAck(t *testing.T) {
	t.Parallel()
	body := `<h1>T</h1><a href="/x">x</a>`
	req := func(lease string) map[string]any {
		return map[string]any{"url": "https://a.example/" + lease, "lease": lease}
	}
	in := strings.Join([]string{
		response(t, "https://a.example/", body, req("err"), map[string]any{"error": "timeout", "status": 0}),
		response(t, "https://a.example/", body, req("404"), map[string]any{"status": 404}),
		response(t, "https://a.example/", "", req("bin"), map[string]any{"body_base64": "iVBORw0K"}),
		response(t, "https://a.example/", "", req("path"), map[string]any{"body_path": "/tmp/x"}),
		response(t, "https://a.example/", body, nil, nil), // no request: no ack
	}, "\n")
	out, stderr, code := run(t, in, "-f", "t=h1", "--links")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := kinds(out); got != "ack,ack,ack,ack,item,request" {
		t.Fatalf("kinds = %s\n%s", got, out)
	}
	for _, want := range []string{"skipped_error 1", "skipped_status 1", "skipped_binary 1", "skipped_body_path 1", "parsed 1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q: %s", want, stderr)
		}
	}
}

func TestOtherRecordsPassThroughUnchanged(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"kind":"request","url":"https://a.example/?a=1&b=<2>","zeta":{"n":1.50},"alpha":[1, 2]}`,
		`{"kind":"item","data":{"b":1,"a":2},"unknown":true}`,
		`{"kind":"ack","lease":"x"}`,
		`{"title":"plain object","n":12345678901234567890}`,
		`{"kind":"future","x":1}`,
		`https://bare.example/page`,
	}, "\n")
	out, stderr, code := run(t, in, "-f", "t=h1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := strings.Join([]string{
		`{"kind":"request","url":"https://a.example/?a=1&b=<2>","zeta":{"n":1.50},"alpha":[1, 2]}`,
		`{"kind":"item","data":{"b":1,"a":2},"unknown":true}`,
		`{"kind":"ack","lease":"x"}`,
		`{"title":"plain object","n":12345678901234567890}`,
		`{"kind":"future","x":1}`,
		`{"kind":"request","url":"https://bare.example/page"}`,
	}, "\n") + "\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

func TestBadRecordsAreReportedAndTheStreamGoesOn(t *testing.T) {
	t.Parallel()
	good := response(t, "https://a.example/", "<h1>ok</h1>", nil, nil)
	in := strings.Join([]string{
		good,
		`{"kind":"response","url":"u","status":"200"}`,
		`{"kind":"response","url":"u","request":{"url":"u","depth":"deep"}}`,
		`{"kind":"response",`,
		good,
	}, "\n")
	out, stderr, code := run(t, in, "-f", "t=h1")
	if code != cli.ExitPartial {
		t.Fatalf("exit %d, want 3", code)
	}
	if got := kinds(out); got != "item,item" {
		t.Fatalf("kinds = %s", got)
	}
	for _, want := range []string{
		`cextract: <stdin>:2: invalid record: field "status": expected an integer, got string`,
		`cextract: <stdin>:3: invalid record: field "request": field "depth": expected an integer, got string`,
		`cextract: <stdin>:4: invalid record: invalid JSON`,
		"5 in, 2 out, 3 dropped (invalid 3)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestSelectorErrorsAreCappedAndCounted(t *testing.T) {
	t.Parallel()
	page := response(t, "https://a.example/", `<p>x</p><b>[</b>`, nil, nil)
	in := strings.Repeat(page+"\n", 8)
	out, stderr, code := run(t, in, "-f", `m=//p[matches(., string(//b))]`, "-f", "ok=p")
	if code != cli.ExitPartial {
		t.Fatalf("exit %d", code)
	}
	if strings.Count(out, `"data":{"ok":"x"}`) != 8 {
		t.Fatalf("out = %s", out)
	}
	if n := strings.Count(stderr, "-f m: evaluation failed"); n != 5 {
		t.Fatalf("%d reports, want 5:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "further ones are only counted") || !strings.Contains(stderr, "errors: selector 8") {
		t.Fatalf("stderr:\n%s", stderr)
	}
}

func TestEmptyItemsAreCountedNotErrors(t *testing.T) {
	t.Parallel()
	in := response(t, "https://a.example/", "<p>nothing</p>", nil, nil)
	out, stderr, code := run(t, in, "-f", "t=h1")
	if code != 0 || out != "" || !strings.Contains(stderr, "items: emitted 0, empty 1") {
		t.Fatalf("exit %d out %q stderr %s", code, out, stderr)
	}
}

func TestDeeplyNestedPageStillYieldsItsTextAndLinks(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("<div>", 3000) + `<h1>deep</h1><a href="/deep">d</a>` + strings.Repeat("</div>", 3000) + `<a href="/after">a</a>`
	in := response(t, "https://a.example/", "<title>T</title>"+deep, nil, nil)
	out, stderr, code := run(t, in, "-f", "t=title", "-f", "h=h1", "--links")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`"data":{"t":"T","h":"deep"}`, `"url":"https://a.example/deep"`, `"url":"https://a.example/after"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%.500s", want, out)
		}
	}
	if !strings.Contains(stderr, "too_deep 1") {
		t.Errorf("summary: %s", stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{nil, "nothing to extract: give a rules file (-r FILE), -f NAME=SELECTOR"},
		{[]string{"-f", "price=p.["}, `cextract: -f price: invalid CSS selector "p.[": expected identifier, found [ instead`},
		{[]string{"-f", "n=count(//a"}, `cextract: -f n: invalid XPath "count(//a": '(' at offset 5 is not closed`},
		{[]string{"-f", "title"}, `-f "title": want NAME=SELECTOR or NAME[]=SELECTOR`},
		{[]string{"-f", "t=h1", "-f", "t=h2"}, "-f t: field given twice"},
		{[]string{"--each", "div", "--links"}, "--each: needs at least one -f"},
		{[]string{"--each", "a::text", "-f", "t=h1"}, `--each "a::text": selects text, not elements`},
		{[]string{"--each", "div[", "-f", "t=h1"}, `--each: invalid CSS selector "div["`},
		{[]string{"-f", "t=h1", "--allow", "x"}, "--allow: only applies to links: add --links"},
		{[]string{"--links", "--deny", "(?!x)"}, `--deny "(?!x)": error parsing regexp`},
		{[]string{"--links", "--allow-domain", "https://a.example/"}, "--allow-domain: want a domain name such as example.com"},
		{[]string{"--links", "--max-url-length", "-1"}, "--max-url-length: want 0 (no limit) or a length, got -1"},
		{[]string{"-f", "t=h1", "--type", ""}, "--type: must not be empty"},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
	}
	for _, tt := range tests {
		out, stderr, code := run(t, "", tt.args...)
		if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "Try 'cextract --help'") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestHelpListsFlagsAndExitCodes(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"--field NAME=SELECTOR", "--each SELECTOR", "--links", "--allow-domain DOMAIN", "URLLENGTH_LIMIT", "cexport", "130  interrupted"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestEnvironmentSetsFields(t *testing.T) {
	t.Parallel()
	in := response(t, "https://a.example/", "<h1>env</h1>", nil, nil)
	out, _, code := runEnv(t, map[string]string{"CEXTRACT_FIELD": "t=h1"}, in)
	if code != 0 || !strings.Contains(out, `"data":{"t":"env"}`) {
		t.Fatalf("exit %d out %s", code, out)
	}
}

func TestOutputFileAndStats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outFile, statsFile := filepath.Join(dir, "out.ndjson"), filepath.Join(dir, "stats.json")
	in := response(t, "https://a.example/", "<h1>x</h1>", nil, nil)
	stdout, _, code := run(t, in, "-q", "-f", "t=h1", "-o", outFile, "--stats", statsFile)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d stdout %q", code, stdout)
	}
	b, err := os.ReadFile(outFile)
	if err != nil || !strings.Contains(string(b), `"data":{"t":"x"}`) {
		t.Fatalf("output file %s %v", b, err)
	}
	var st cli.StatsJSON
	b, _ = os.ReadFile(statsFile)
	if err := json.Unmarshal(b, &st); err != nil || st.In != 1 || st.Out != 1 || st.Counts["items"]["emitted"] != 1 {
		t.Fatalf("stats %s %v", b, err)
	}
}

// errWriter fails every write, as a closed pipe does.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteErrorStopsWithFailure(t *testing.T) {
	t.Parallel()
	in := strings.Repeat(response(t, "https://a.example/", "<h1>x</h1>", nil, nil)+"\n", 3)
	var stderr bytes.Buffer
	code := execute(context.Background(), []string{"-f", "t=h1"}, strings.NewReader(in), errWriter{}, &stderr)
	if code != cli.ExitFailure || strings.Count(stderr.String(), "write output") != 1 {
		t.Fatalf("exit %d stderr %s", code, stderr.String())
	}
}

func TestInterruptStopsAfterTheCurrentRecord(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cli.ErrInterrupted)
	in := response(t, "https://a.example/", "<h1>x</h1>", nil, nil)
	var out, stderr bytes.Buffer
	code := execute(ctx, []string{"-f", "t=h1"}, strings.NewReader(in), &out, &stderr)
	if code != cli.ExitInterrupted || out.Len() != 0 {
		t.Fatalf("exit %d out %q", code, out.String())
	}
}

func TestInterruptedPipeIsDrained(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	in := strings.Repeat(response(t, "https://a.example/", "<h1>x</h1>", map[string]any{"url": "u", "lease": "L"}, nil)+"\n", 3)
	go func() {
		w.WriteString(in)
		w.Close()
	}()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cli.ErrInterrupted) // the signal came before anything was read
	var out, stderr bytes.Buffer
	code := execute(ctx, []string{"-f", "t=h1"}, r, &out, &stderr)
	if code != cli.ExitInterrupted {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := kinds(out.String()); got != "item,ack,item,ack,item,ack" {
		t.Fatalf("a pipe must be read to its end after a signal; got %s", got)
	}
}
