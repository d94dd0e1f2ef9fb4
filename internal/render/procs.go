package render

import (
	"bytes"
	"os"
	"strconv"
)

// ProcessesUsing returns the ids of the processes whose command line has
// --user-data-dir=dir: every process of the browser started with that
// profile (Linux; nil elsewhere).
func ProcessesUsing(dir string) []int {
	want := []byte("--user-data-dir=" + dir)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
			if bytes.Equal(arg, want) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
