//go:build !unix

package cli

import (
	"os"
	"time"
)

// watchOutput cannot tell here: a closed pipe is noticed at the next write.
func watchOutput(*os.File, time.Duration, <-chan struct{}, func()) {}
