package crawl

import (
	"fmt"
	"strings"
)

// splitArgs splits s into words as a POSIX shell splits a command line,
// quotes and backslashes included, but expands nothing: 'single quotes'
// keep everything, "double quotes" keep everything but \" \\ \$ and \`,
// a backslash outside quotes keeps the next character. A variable ($NAME,
// ${…}, $(…)), a backquote or an unquoted shell operator (| & ; < > ( ))
// is an error rather than a literal, because a reader of the command line
// would expect a shell to act on it.
func splitArgs(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			end()
		case c == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated ' quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch {
				case rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[j+1]):
					j++
					if rs[j] != '\n' {
						cur.WriteRune(rs[j])
					}
				case rs[j] == '`' || rs[j] == '$' && expands(rs, j):
					return nil, notExpanded(rs, j)
				default:
					cur.WriteRune(rs[j])
				}
			}
			if j == len(rs) {
				return nil, fmt.Errorf(`unterminated " quote`)
			}
			i = j
		case c == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("a backslash at the end")
			}
			i++
			if rs[i] != '\n' {
				inWord = true
				cur.WriteRune(rs[i])
			}
		case c == '`' || c == '$' && expands(rs, i):
			return nil, notExpanded(rs, i)
		case strings.ContainsRune("|&;<>()", c):
			return nil, fmt.Errorf("%c is not run by a shell here: quote it to pass it as it is", c)
		default:
			inWord = true
			cur.WriteRune(c)
		}
	}
	end()
	return words, nil
}

// expands reports whether the $ at rs[i] would be expanded by a shell.
func expands(rs []rune, i int) bool {
	if i+1 >= len(rs) {
		return false
	}
	c := rs[i+1]
	return c == '{' || c == '(' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func notExpanded(rs []rune, i int) error {
	j := i + 1
	for j < len(rs) && j < i+20 && !strings.ContainsRune(" \t\n'\"", rs[j]) {
		j++
	}
	return fmt.Errorf("%s is not expanded here: write its value, or use double quotes around the whole argument so that your shell expands it", string(rs[i:j]))
}

// passThrough are the tools whose flags cqueue crawl passes on, by the name
// of its flag (--cfetch ARGS), with the flags it sets itself and so
// refuses there: why, and the flags' long and short names.
var passThrough = []struct {
	flag, tool string
	reserved   map[string]string
}{
	{"pop", "cqueue pop", map[string]string{
		"db": "the frontier is cqueue crawl's --db or --redis", "redis": "the frontier is cqueue crawl's --db or --redis",
		"follow": "set by cqueue crawl", "f": "set by cqueue crawl",
	}},
	{"cthrottle", "cthrottle (put between cqueue pop and cfetch when given)", map[string]string{
		"db": "cthrottle shares the crawl's --db or --redis", "redis": "cthrottle shares the crawl's --db or --redis",
	}},
	{"cfetch", "cfetch", nil},
	{"cextract", "cextract", map[string]string{
		"rules": "the rules are cqueue crawl's RULES", "r": "the rules are cqueue crawl's RULES",
		"check": "cqueue crawl checks RULES itself", "explain": "it does not crawl",
		"failures": "give it to cqueue crawl (--failures FILE), whose account names the first failed pages",
		"test":     "it does not crawl", "shell": "it does not crawl",
	}},
	{"cexport", "cexport", map[string]string{
		"rules": "the rules are cqueue crawl's RULES", "r": "the rules are cqueue crawl's RULES",
		"overwrite-output": "the export is cqueue crawl's OUT, appended to so that a rerun completes it; remove OUT to start over",
		"O":                "the export is cqueue crawl's OUT, appended to so that a rerun completes it; remove OUT to start over",
		"gone":             "cqueue crawl runs cexport --gone ROUND itself once a round is complete (with --changed-only or --history); as a stage of the loop it would read nothing, and the crawl would wait for it forever",
	}},
	{"push", "cqueue push", map[string]string{
		"db": "the frontier is cqueue crawl's --db or --redis", "redis": "the frontier is cqueue crawl's --db or --redis",
		"scrapy-fingerprints": "give it to cqueue crawl, which queues the seeds with it too",
		"dedupe-ttl":          "give it to cqueue crawl, which queues the seeds with it too",
		"order":               "give it to cqueue crawl, which queues the seeds with it too",
		"depth-priority":      "give it to cqueue crawl, which queues the seeds with it too",
		"refresh":             "give it to cqueue crawl, which queues the seeds with it too",
		"round":               "cqueue crawl numbers the rounds itself",
		"rejects":             "cqueue crawl's account counts the refused requests",
	}},
}

// everyToolReserved are the shared flags cqueue crawl sets on every tool.
var everyToolReserved = map[string]string{
	"quiet":         "cqueue crawl runs every tool quietly and shows one progress line and one account",
	"q":             "cqueue crawl runs every tool quietly and shows one progress line and one account",
	"stats":         "cqueue crawl reads every tool's stats; its own --stats FILE has them all (or set CFETCH_STATS=FILE, …)",
	"stats-every":   "cqueue crawl reads every tool's stats; its own --stats FILE has them all (or set CFETCH_STATS=FILE, …)",
	"stats-to":      "cqueue crawl publishes every tool's stats to its frontier itself (--publish-every)",
	"stats-crawlid": "cqueue crawl publishes every tool's stats to its frontier itself (--publish-every)",
	"output":        "the tools of the loop are connected by pipes",
	"o":             "the tools of the loop are connected by pipes",
	"help":          "see 'TOOL --help' on its own",
	"h":             "see 'TOOL --help' on its own",
	"version":       "see 'TOOL --version' on its own",
}

// checkPassThrough refuses, in the words given to --TOOL, a flag that
// cqueue crawl sets itself.
func checkPassThrough(flag string, reserved map[string]string, words []string) error {
	for _, w := range words {
		name, ok := flagName(w)
		if !ok {
			continue
		}
		why, bad := reserved[name]
		if !bad {
			why, bad = everyToolReserved[name]
		}
		if bad {
			return fmt.Errorf("--%s: %s is not for here: %s", flag, w, why)
		}
	}
	return nil
}

// flagName returns the name of the flag word w sets: "concurrency" for
// --concurrency=32, "q" for -q or -qv.
func flagName(w string) (string, bool) {
	switch {
	case strings.HasPrefix(w, "--") && len(w) > 2:
		name, _, _ := strings.Cut(w[2:], "=")
		return name, true
	case strings.HasPrefix(w, "-") && len(w) > 1 && w[1] != '-':
		return w[1:2], true
	}
	return "", false
}
