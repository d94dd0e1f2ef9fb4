package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShellInTmux drives cextract --shell in a real terminal, a tmux pane,
// as a person types: a selector answered at once, Tab completing a class
// of the page and a file name after :rules, the up arrow bringing the last
// line back, and Ctrl-D ending the session with exit 0.
func TestShellInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	bin, dir := binDir(t), t.TempDir()
	page := `{"kind":"response","url":"https://shop.example/p/1","status":200,"headers":{"content-type":"text/html"},` +
		`"body":"<h1>Widget</h1><p class=price>3.50</p><p class=stock>In stock</p><a href='/p/2'>next</a>","request":{"url":"https://shop.example/p/1"}}` + "\n"
	rules := "items:\n  - name: product\n    fields:\n      title: h1\n      price: {css: .price, process: [float]}\n"
	for name, data := range map[string]string{"page.ndjson": page, "shop.yml": rules} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("tmux", append([]string{"-S", sock}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0", "TERM=xterm")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tmux("-f", "/dev/null", "new-session", "-d", "-x", "150", "-y", "40", "-s", "shell",
		`cextract --shell page.ndjson; echo "exit $?"; sleep 600`)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })

	// wait polls the pane until ok says its text is there: generous, as the
	// machine may be loaded; it never waits longer than it must.
	wait := func(what string, ok func(pane string) bool) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			pane := tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "shell")
			if ok(pane) {
				return pane
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s; the pane:\n%s", what, pane)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	count := func(s string, n int) func(string) bool {
		return func(pane string) bool { return strings.Count(pane, s) >= n }
	}
	wait("the page and the prompt", func(p string) bool {
		return strings.Contains(p, "https://shop.example/p/1  status 200, html") && strings.Contains(p, "cextract> ")
	})

	tmux("send-keys", "-t", "shell", "h1", "Enter")
	wait("h1's value", count(`"Widget"`, 1))

	// Tab completes .pr to .price, the one class of the page that starts so.
	tmux("send-keys", "-t", "shell", ".pr", "Tab")
	wait("the class completed", count("cextract> .price", 1))
	tmux("send-keys", "-t", "shell", "::text", "Enter")
	wait(".price::text's value", count(`"3.50"`, 1))

	// Up brings the last line back; Enter runs it again.
	tmux("send-keys", "-t", "shell", "Up")
	wait("the last line recalled", count("cextract> .price::text", 2))
	tmux("send-keys", "-t", "shell", "Enter")
	wait("the value again", count(`"3.50"`, 2))

	// Tab completes a file name after :rules.
	tmux("send-keys", "-t", "shell", ":rules sh", "Tab")
	wait("the file name completed", count("cextract> :rules shop.yml", 1))
	tmux("send-keys", "-t", "shell", "Enter")
	wait("the rules' item", count(`{"kind":"item","type":"product","data":{"title":"Widget","price":3.50}`, 1))

	// A selector that finds nothing, and why.
	tmux("send-keys", "-t", "shell", ".nope", "Enter")
	wait("nothing", count("(nothing: :explain says why)", 1))
	tmux("send-keys", "-t", "shell", ":explain .nope", "Enter")
	wait("the explanation", count("EMPTY: the selector matched nothing", 1))

	tmux("send-keys", "-t", "shell", "C-d")
	wait("the end of the session", count("exit 0", 1))
}
