package redistest

import (
	"net/url"
	"testing"
)

func TestStart(t *testing.T) {
	u := Start(t)
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "redis" || p.Hostname() != "127.0.0.1" || p.Path != "/0" {
		t.Fatalf("Start = %q (%v)", u, err)
	}
	if !ping(p.Host) {
		t.Fatalf("no PONG from %s", p.Host)
	}
}

func TestStartTwice(t *testing.T) {
	a, b := Start(t), Start(t)
	if a == b {
		t.Fatalf("two servers on one address: %s", a)
	}
}
