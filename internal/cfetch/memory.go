package cfetch

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
)

// setMemoryLimit sets the Go runtime's soft memory limit (GOMEMLIMIT) to
// --max-memory, which holds the bodies' budget and the room for the one
// response the budget lets past it (bodyBudget). Without
// it the collector lets garbage grow to as much as is live, or more,
// before it collects: 16 pages of 30 MB under a budget of 256 MiB peaked
// near 900 MB of RSS; with it, at 370 MB. Collecting more often costs
// little here: bodies are byte slices, which the collector does not scan.
// It does nothing when GOMEMLIMIT is set (the user's choice) or there is
// no budget (GOMEMLIMIT is the process's: the runtime reads it, not the
// command's Env), and returns a function that puts the old limit back.
// Runs at once in one process (in-process tests) share the limit: the
// first run's old one comes back when the last run ends.
func setMemoryLimit(o *Options) (restore func()) {
	if o.MaxMemory <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := o.MaxMemory
	memLimit.Lock()
	defer memLimit.Unlock()
	if memLimit.runs == 0 {
		memLimit.old = debug.SetMemoryLimit(limit)
	} else {
		debug.SetMemoryLimit(max(limit, debug.SetMemoryLimit(-1)))
	}
	memLimit.runs++
	return func() {
		memLimit.Lock()
		defer memLimit.Unlock()
		if memLimit.runs--; memLimit.runs == 0 {
			debug.SetMemoryLimit(memLimit.old)
		}
	}
}

// memLimit is the state of setMemoryLimit's runs.
var memLimit struct {
	sync.Mutex
	runs int
	old  int64
}

// bodyBudget is the budget of the bodies in flight (budget.go): --max-memory
// less exemptRoom, the room kept for the one response the budget lets past
// it when every response holding memory waits for more. Without that room
// the bodies held the budget plus one response: bodies of unknown length (a
// compressed body, whose buffer grows as it is decoded) fill the budget
// part-read, all wait, and one goes on past it, again and again; 16 gzip
// pages of 30 MB under the default 1 GiB peaked at 1,075 MiB of RSS.
func bodyBudget(o *Options) int64 {
	if o.MaxMemory <= 0 {
		return 0
	}
	return max(1, o.MaxMemory-exemptRoom(o))
}

// exemptRoom is the part of --max-memory kept for the response the budget
// lets past it: a body of --max-size (its buffer may be half again too
// large while it grows) and its record (text escaped as JSON, or base64,
// about 1.3 times the body), 2.5 times --max-size; at most a quarter of
// --max-memory. A larger response (a record of control bytes escapes to 6
// times its body) still completes, past --max-memory.
func exemptRoom(o *Options) int64 {
	room := o.MaxMemory / 4
	if o.MaxSize > 0 {
		room = min(room, satAdd(satAdd(o.MaxSize, o.MaxSize), o.MaxSize/2))
	}
	return room
}

// defaultMaxMemory is --max-memory's default: a quarter of the machine's
// memory, at most 1 GiB (1 GiB when the memory is unknown).
var defaultMaxMemory = sync.OnceValue(func() int64 {
	const most = 1 << 30
	total := physicalMemory("/proc/meminfo")
	if total <= 0 {
		return most
	}
	return min(most, total/4)
})

// physicalMemory reads MemTotal from a Linux /proc/meminfo file, in bytes;
// 0 when there is no such file or line.
func physicalMemory(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// MemTotal:       24683656 kB
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemTotal:"))
		if !ok {
			continue
		}
		num, unit, _ := bytes.Cut(bytes.TrimSpace(rest), []byte(" "))
		n, err := strconv.ParseInt(string(num), 10, 64)
		if err != nil || n <= 0 || string(bytes.TrimSpace(unit)) != "kB" || n > 1<<50 {
			return 0
		}
		return n << 10
	}
	return 0
}

// satAdd is a+b for sizes of 0 or more, math.MaxInt64 when it overflows.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
