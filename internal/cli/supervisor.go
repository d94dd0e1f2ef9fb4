package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// SupervisorEnv names the environment variable cqueue crawl sets for the
// tools it starts: its own pid. A tool whose parent is no longer that
// process (it died, even by kill -9, and the tool was handed to another
// parent) ends at once, as the kernel's parent-death signal would end it
// where it is delivered: what the tool held goes back to the frontier as
// after any kill, and no tool of a dead run goes on beside the next one.
const SupervisorEnv = "CRAWLUTILS_SUPERVISOR"

// supervisorWatchEvery is how often a supervised tool checks its parent.
const supervisorWatchEvery = 250 * time.Millisecond

// supervisor is the pid SupervisorEnv names, or 0.
func supervisor() int {
	pid, err := strconv.Atoi(os.Getenv(SupervisorEnv))
	if err != nil || pid <= 1 {
		return 0
	}
	return pid
}

// watchSupervisor starts the watch SupervisorEnv asks for, if it does,
// until the returned stop is called.
func watchSupervisor() (stop func()) {
	pid := supervisor()
	if pid == 0 {
		return func() {}
	}
	check := func() {
		if os.Getppid() != pid {
			supervisorGone(pid)
		}
	}
	check()
	return Every(supervisorWatchEvery, check)
}

func supervisorGone(pid int) {
	fmt.Fprintf(os.Stderr, "%s: its cqueue crawl (pid %d) is gone; stopping at once, as it was\n", filepath.Base(os.Args[0]), pid)
	runAbortHooks()
	os.Exit(ExitFailure)
}
