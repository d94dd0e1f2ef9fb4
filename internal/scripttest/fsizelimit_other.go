//go:build !unix

package scripttest

import (
	"fmt"
	"os"
)

// fsizeLimitMain: there is no RLIMIT_FSIZE here; scripts using fsizelimit
// should carry [unix].
func fsizeLimitMain() int {
	fmt.Fprintln(os.Stderr, "fsizelimit: not supported on this system")
	return 2
}
