package redistest

import (
	"net/url"
	"strings"
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

func TestStartCluster(t *testing.T) {
	c := NewCluster(t, ClusterOptions{Replicas: 1})
	if len(c.Addrs) != 6 || c.URL != "redis+cluster://"+strings.Join(c.Addrs, ",") {
		t.Fatalf("NewCluster = %+v", c)
	}
	for i, a := range c.Addrs {
		role, err := Do(a, "ROLE")
		if want := map[bool]string{true: "master", false: "slave"}[i < 3]; err != nil || role != want {
			t.Errorf("%s: ROLE %q (%v), want %s", a, role, err, want)
		}
		info, err := Do(a, "CLUSTER", "INFO")
		if err != nil || !strings.Contains(info, "cluster_state:ok\r\n") {
			t.Errorf("%s: CLUSTER INFO %q (%v)", a, info, err)
		}
	}
	if slot, err := Do(c.Addrs[0], "CLUSTER", "KEYSLOT", "{crawlutils:}f:seq"); err != nil || slot != "3740" {
		t.Errorf("CLUSTER KEYSLOT = %q (%v)", slot, err)
	}
}
