package throttle

import (
	"os"
	"testing"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// The throttle's tests run on a Redis Cluster too (backends' "cluster"),
// which this binary starts once and stops here.
func TestMain(m *testing.M) {
	code := m.Run()
	redistest.StopShared()
	os.Exit(code)
}
