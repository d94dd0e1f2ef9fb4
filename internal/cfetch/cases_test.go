package cfetch

import (
	"net/http"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	scripttest.Main(m, map[string]func() *cli.Command{"cfetch": Command})
}

// TestCases runs testdata/cases/cfetch/*.txtar against a fault server at
// $SERVER ($REFUSED is a URL where nothing listens). The server also
// answers any host name on its port $PORT (use --resolve "*:$PORT:127.0.0.1");
// robots.txt of shop.test disallows /private/, of down.test answers 503.
func TestCases(t *testing.T) {
	scripttest.Run(t, "../../testdata/cases/cfetch", func(env *testscript.Env) error {
		s := newFaultServer()
		env.Defer(s.Close)
		s.setRobots("shop.test", robotsText("User-agent: *\nDisallow: /private/\n"))
		s.setRobots("down.test", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
		env.Setenv("SERVER", s.URL)
		env.Setenv("PORT", s.URL[strings.LastIndexByte(s.URL, ':')+1:])
		env.Setenv("REFUSED", refusedURL(env.T()))
		return nil
	})
}
