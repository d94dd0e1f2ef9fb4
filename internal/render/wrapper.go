package render

import (
	"bufio"
	"bytes"
	"os"
	"strings"
)

// unwrap returns the program a wrapper script at path runs, when all the
// script does is run one program with its own arguments ("$@"), as
// Debian's /usr/bin/chromium-headless-shell does without exec:
//
//	#!/bin/sh -e
//
//	/usr/lib/chromium/chromium-headless-shell "$@"
//
// Started through such a script, the browser would be the child of a
// shell: the shell, not the browser, would die with cfetch (kill -9
// included), and a hung browser would be told apart from its shell by
// nothing. Any other file (a binary, a script that does more: sets flags,
// cleans up) is returned as it is.
func unwrap(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return path
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) || n == cap(head) {
		return path // not a script, or longer than a wrapper
	}
	target := ""
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Scan() // the #! line
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if target != "" {
			return path // more than one command
		}
		words := strings.Fields(strings.TrimPrefix(line, "exec "))
		if len(words) != 2 || words[1] != `"$@"` || !strings.HasPrefix(words[0], "/") {
			return path
		}
		target = words[0]
	}
	if target == "" || !isBinary(target) {
		return path
	}
	return target
}

// isBinary reports whether path is an executable ELF file.
func isBinary(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := f.Read(magic); err != nil {
		return false
	}
	return string(magic) == "\x7fELF"
}
