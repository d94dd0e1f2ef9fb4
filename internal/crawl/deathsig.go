package crawl

import (
	"os"
	"os/exec"

	"github.com/crawlutils/crawlutils/internal/childproc"
)

// setDeathSignal has the kernel kill cmd when this process dies (Linux),
// so that a cqueue crawl killed on its own (kill -9 of its pid) does not
// leave its loop running without it: what the loop held goes back to the
// queue as after any kill, and the rerun starts at once. Where the kernel
// does not deliver it (some sandboxes), each tool watches its parent
// itself (cli.SupervisorEnv); CRAWLUTILS_TEST_NO_DEATHSIG=1 leaves the
// signal out, so that a test can show that watch works alone.
func setDeathSignal(cmd *exec.Cmd) {
	if os.Getenv("CRAWLUTILS_TEST_NO_DEATHSIG") == "1" {
		return
	}
	childproc.DieWithParent(cmd)
}
