package throttle

import (
	"strings"
	"testing"
	"time"
)

func TestReadTable(t *testing.T) {
	def := Rate{Interval: time.Second, Burst: 2}
	tab, err := ReadTable(strings.NewReader(`# slow sites
Example.COM 1/5s
api.example.com:8443  10/s burst=5   # their documented limit

[::1]:8080 2/s
D.Test. 1/7s
::1 1/3s
f.test:08080 1/9s
x.test: 1/4s
[FE80::1%eth0]:8080 1/6s
`), "rates.txt", def, true)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"example.com":          "1/5s burst 2",
		"EXAMPLE.com":          "1/5s burst 2",
		"example.com:8080":     "1/5s burst 2", // the host's rate, whatever the port
		"api.example.com:8443": "10/s burst 5",
		"api.example.com":      "1/s burst 2",
		"[::1]:8080":           "2/s burst 2",
		"other.test":           "1/s burst 2",
		// A key is read as HostKey writes a URL's: a trailing dot, an
		// IPv6 address without brackets, a port with leading zeros.
		"d.test":      "1/7s burst 2",
		"d.test:8080": "1/7s burst 2",
		"[::1]":       "1/3s burst 2",
		"f.test:8080": "1/9s burst 2",
		"f.test":      "1/s burst 2",
		"x.test:8080": "1/4s burst 2", // "x.test:" is x.test, all its ports
		"x.test":      "1/4s burst 2",
		// HostKey of http://[fe80::1%25eth0]:8080/.
		"[fe80::1%eth0]:8080": "1/6s burst 2",
	} {
		if got := tab.For(key).String(); got != want {
			t.Errorf("For(%q) = %s, want %s", key, got, want)
		}
	}
	if tab.Len() != 8 {
		t.Errorf("Len %d", tab.Len())
	}
}

// TestTableKeysMatchExactly: the keys of --key (a table without host
// keys) match as they are: "acct:1" is no port of "acct", and case
// counts.
func TestTableKeysMatchExactly(t *testing.T) {
	def := Rate{Interval: time.Second, Burst: 1}
	tab, err := ReadTable(strings.NewReader("acct 1/5s\nAcct:2 1/7s\n[::1] 1/9s\n"), "rates.txt", def, false)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"acct":       "1/5s",
		"acct:1":     "1/s",
		"Acct:2":     "1/7s",
		"acct:2":     "1/s",
		"ACCT":       "1/s",
		"[::1]":      "1/9s",
		"[::1]:8080": "1/s",
	} {
		if got := tab.For(key).String(); got != want {
			t.Errorf("For(%q) = %s, want %s", key, got, want)
		}
	}
}

func TestReadTableErrors(t *testing.T) {
	def := Rate{Interval: time.Second, Burst: 1}
	for in, want := range map[string]string{
		"a.test 1/s\nb.test 3/x\n":       `rates.txt:2: bad rate "3/x": period "x"`,
		"\n\na.test\n":                   `rates.txt:3: want KEY RATE [burst=N]`,
		"a.test 1/s burst 3\n":           `rates.txt:1: want KEY RATE [burst=N]`,
		"a.test 1/s 3\n":                 `rates.txt:1: "3": want burst=N after the rate`,
		"a.test 1/s burst=0\n":           `rates.txt:1: burst 0: must be between 1 and`,
		"a.test 0/s\n":                   `rates.txt:1: bad rate "0/s": count 0: must be positive`,
		"a.test 1/s\n# x\nA.TEST 2/s\n":  `rates.txt:3: a.test is already given on line 1`,
		"a.test 1/s\nb.test -1/s # no\n": `rates.txt:2: bad rate "-1/s": count -1: must be positive`,
		// A key no request's key can be is an error, not a line that
		// never applies.
		"https://b.test 1/5s\n":   `rates.txt:1: "https://b.test" is a URL: give its host key, b.test`,
		"b.test/shop 1/5s\n":      `rates.txt:1: "b.test/shop" is no host or host:port`,
		"*.c.test 1/5s\n":         `rates.txt:1: "*.c.test": a key is one host`,
		"e.test:443 1/5s\n":       `rates.txt:1: "e.test:443": a URL on its scheme's default port is keyed without it (http://e.test:443/ is e.test): give e.test`,
		"e.test:080 1/5s\n":       `give e.test`,
		"e.test:99999 1/5s\n":     `rates.txt:1: "e.test:99999": port 99999 is out of range`,
		"user@e.test 1/5s\n":      `rates.txt:1: "user@e.test" is no host or host:port`,
		"a.test 1/s\nA.test. 2/s": `rates.txt:2: a.test is already given on line 1`,
	} {
		_, err := ReadTable(strings.NewReader(in), "rates.txt", def, true)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// FuzzReadTable: a rates file either fails with an error naming the file
// or gives valid rates for every key.
func FuzzReadTable(f *testing.F) {
	for _, s := range []string{"example.com 1/5s\n", "# c\na 1/s burst=3\nb 2/m", "a 3/x", "a 1/s\na 1/s", "\xff 1/s", "::1 1/s\nB.test.:08080 2/s", "http://a.test 1/s", "\ufeffa.test 1/s", "[fe80::1%eth0]:8080 1/s\n[::1%25x] 1/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := ReadTable(strings.NewReader(s), "f", Rate{Interval: time.Second, Burst: 1}, true)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for _, line := range strings.Split(s, "\n") {
			if fs := strings.Fields(line); len(fs) > 0 {
				if err := tab.For(fs[0]).Valid(); err != nil {
					t.Fatalf("%q: %v", fs[0], err)
				}
			}
		}
		// Every key is as HostKey writes a URL's: read again, it is
		// itself, and a URL of that host has that key.
		for key := range tab.keys {
			if again, err := lineHostKey(key); err != nil || again != key {
				t.Fatalf("key %q read again: %q, %v", key, again, err)
			}
			u := "http://" + strings.ReplaceAll(key, "%", "%25") + "/" // an IPv6 zone
			if got, _ := HostKey(u); got != key {
				t.Fatalf("key %q: %s is keyed %q", key, u, got)
			}
		}
	})
}
