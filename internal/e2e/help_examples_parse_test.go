package e2e

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// helpExample is one example of a command's --help: the command lines a
// user would type, in order.
type helpExample struct {
	help string   // whose --help shows it: "cfetch", "cqueue push"
	text string   // the key: the lines, each continuation joined into one, "\n" between
	cmds []string // the command lines (continuations joined), comments kept
}

// tools are the commands whose --help has examples; cqueue's are in its
// subcommands' --help.
var tools = []string{"cfetch", "cextract", "cexport", "cdedupe", "cthrottle", "cqueue"}

// helpTexts runs every command's --help, and every cqueue subcommand's
// (those cqueue --help lists), from bin, and returns them by name.
func helpTexts(t *testing.T, bin string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	run := func(name string, args ...string) string {
		out, err := exec.Command(filepath.Join(bin, name), args...).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		return string(out)
	}
	for _, tool := range tools {
		texts[tool] = run(tool, "--help")
	}
	subs := subcommands(texts["cqueue"])
	if len(subs) < 5 {
		t.Fatalf("cqueue --help lists %d subcommands (%q); want its list under \"Subcommands:\"", len(subs), subs)
	}
	for _, sub := range subs {
		texts["cqueue "+sub] = run("cqueue", sub, "--help")
	}
	return texts
}

// subcommands are the names listed under "Subcommands:" in cqueue --help.
func subcommands(help string) []string {
	var names []string
	for _, line := range section(help, "Subcommands:") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

// section returns the lines after the line head up to the next line that
// is neither blank nor indented (the next heading), trailing blanks dropped.
func section(help, head string) []string {
	var lines []string
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case !in:
			in = line == head
		case line != "" && !strings.HasPrefix(line, " "):
			return trimBlank(lines)
		default:
			lines = append(lines, line)
		}
	}
	return trimBlank(lines)
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// examples splits the Examples: section of a --help into examples. A
// paragraph (lines between blank lines) that begins with a # comment is one
// example: its command lines run in order, in one shell. Otherwise each
// command line is an example of its own. A line ending in \ or | goes on
// to the next.
func examples(help, text string) []helpExample {
	var out []helpExample
	for _, para := range paragraphs(section(text, "Examples:")) {
		cmds := joinContinued(para)
		if strings.HasPrefix(strings.TrimSpace(para[0]), "#") {
			out = append(out, newExample(help, cmds))
			continue
		}
		for _, c := range cmds {
			out = append(out, newExample(help, []string{c}))
		}
	}
	return out
}

func newExample(help string, cmds []string) helpExample {
	return helpExample{help: help, text: strings.Join(cmds, "\n"), cmds: cmds}
}

func paragraphs(lines []string) [][]string {
	var paras [][]string
	var cur []string
	for _, line := range append(lines, "") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				paras = append(paras, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	return paras
}

// joinContinued returns the command lines of a paragraph, comment lines
// dropped, a line ending in \ or | joined with the next by one space.
func joinContinued(para []string) []string {
	var cmds []string
	cur := ""
	for _, line := range para {
		line = strings.TrimSpace(line)
		if cur == "" && strings.HasPrefix(line, "#") {
			continue
		}
		if c, ok := strings.CutSuffix(line, `\`); ok {
			cur += strings.TrimSpace(c) + " "
			continue
		}
		if strings.HasSuffix(line, "|") {
			cur += line + " "
			continue
		}
		cmds = append(cmds, cur+line)
		cur = ""
	}
	if cur != "" {
		cmds = append(cmds, strings.TrimSpace(cur))
	}
	return cmds
}

// uncomment drops a trailing shell comment: a # that starts a word
// outside quotes.
func uncomment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimSpace(line[:i])
		}
	}
	return line
}

var (
	redirectTo = regexp.MustCompile(`(?:^|[^0-9&>])>>?\s*([^\s;|&>]+)`)
	outputFlag = regexp.MustCompile(`(?:^|\s)(?:-o|-O|--output)[\s=]+('[^']*'|"[^"]*"|\S+)`)
)

// outputs are the files an example writes its results to, as its
// command lines say: the targets of > and of -o/-O (an SQLite URI's file,
// a database server's URL as it is). None: it writes them to stdout.
func outputs(ex helpExample) []string {
	var files []string
	for _, c := range ex.cmds {
		c = uncomment(c)
		for _, m := range redirectTo.FindAllStringSubmatch(c, -1) {
			files = append(files, m[1])
		}
		for _, m := range outputFlag.FindAllStringSubmatch(c, -1) {
			f := strings.Trim(m[1], `'"`)
			if f == "-" {
				continue
			}
			if rest, ok := strings.CutPrefix(f, "sqlite:"); ok {
				f, _, _ = strings.Cut(rest, "?")
			}
			files = append(files, f)
		}
	}
	return files
}
