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

// TreeMemory is the memory of process pid and every process descended
// from it, in bytes: the sum of their proportional set sizes (Pss in
// /proc/PID/smaps_rollup: memory shared by several processes is counted
// once, in shares), or of their resident sets where that file cannot be
// read. 0 when pid is not running (or not on Linux).
func TreeMemory(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	var total int64
	for _, p := range descendants(pid) {
		total += processMemory(p)
	}
	return total
}

// descendants returns pid and the ids of the processes descended from it.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// parentOf is the parent process id of pid, 0 when unknown.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(string(f[1]))
	return pp
}

// processMemory is pid's proportional set size, or its resident set size,
// in bytes.
func processMemory(pid int) int64 {
	dir := "/proc/" + strconv.Itoa(pid)
	if b, err := os.ReadFile(dir + "/smaps_rollup"); err == nil {
		for line := range bytes.SplitSeq(b, []byte{'\n'}) {
			if rest, ok := bytes.CutPrefix(line, []byte("Pss:")); ok {
				kb, _, _ := bytes.Cut(bytes.TrimSpace(rest), []byte(" "))
				if n, err := strconv.ParseInt(string(kb), 10, 64); err == nil {
					return n << 10
				}
			}
		}
	}
	b, err := os.ReadFile(dir + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return pages * int64(os.Getpagesize())
}
