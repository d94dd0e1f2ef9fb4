package cfetch

import (
	"os"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// No user config file or CFETCH_* variable may change what tests see.
	os.Setenv("XDG_CONFIG_HOME", "/nonexistent/crawlutils-test")
	os.Unsetenv("CRAWLUTILS_CONFIG")
	scripttest.Main(m, map[string]cli.RunFunc{"cfetch": Run})
}

// TestCases runs testdata/cases/cfetch/*.txtar against a fault server at
// $SERVER ($REFUSED is a URL where nothing listens).
func TestCases(t *testing.T) {
	scripttest.Run(t, "../../testdata/cases/cfetch", func(env *testscript.Env) error {
		s := newFaultServer()
		env.Defer(s.Close)
		env.Setenv("SERVER", s.URL)
		env.Setenv("REFUSED", refusedURL(env.T()))
		return nil
	})
}
