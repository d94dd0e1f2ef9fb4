package cthrottle

import "testing"

func TestClassify(t *testing.T) {
	host, _ := newKeyer("")
	acct, _ := newKeyer(".attrs.account")
	for _, tt := range []struct {
		k      *keyer
		line   string
		class  class
		key    string
		leased bool
	}{
		{host, `https://a.test/`, classKeyed, "a.test", false},
		{host, `{"kind":"request","url":"https://a.test/","lease":"x"}`, classKeyed, "a.test", true},
		{host, `{"kind":"request","url":"https://a.test/","lease":null}`, classKeyed, "a.test", false},
		{host, `{"url":"https://a.test/"}`, classKeyed, "a.test", false},
		{host, `{"URL":"https://a.test/"}`, classKeyed, "a.test", false},
		{host, `{"kind":"request","url":"urn:isbn:0451450523"}`, classUnkeyed, "", false},
		{host, `{"kind":"response","url":"https://a.test/"}`, classPass, "", false},
		{host, `{"kind":"ack","lease":"x"}`, classPass, "", false},
		{host, `{"data":{"url":"x"}}`, classPass, "", false},
		{acct, `{"kind":"request","url":"https://a.test/","attrs":{"account":"acme"}}`, classKeyed, "acme", false},
		{acct, `{"kind":"request","url":"https://a.test/","attrs":{"account":12345678901234567890}}`, classKeyed, "12345678901234567890", false},
		{acct, `{"kind":"request","url":"https://a.test/","attrs":{"account":""}}`, classUnkeyed, "", false},
		{acct, `{"kind":"request","url":"https://a.test/"}`, classUnkeyed, "", false},
		{acct, `{"kind":"item","attrs":{"account":"acme"}}`, classPass, "", false},
	} {
		p, err := parseLine([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		c, key, _, leased, err := tt.k.classify(p)
		if err != nil || c != tt.class || key != tt.key || leased != tt.leased {
			t.Errorf("%s: %v %q %v (%v), want %v %q %v", tt.line, c, key, leased, err, tt.class, tt.key, tt.leased)
		}
	}
	// A request whose fields do not decode, or without a url, is an
	// error, reported with its line, as in every tool.
	for _, line := range []string{`{"kind":"request"}`, `{"url":null}`, `{"kind":"request","url":42}`, `{"url":"https://a.test/","priority":1.5}`, `{"url":"https://a.test/","retries":-1}`} {
		p, err := parseLine([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, _, err := host.classify(p); err == nil {
			t.Errorf("%s: classified without an error", line)
		}
	}
}

func TestWithField(t *testing.T) {
	for in, want := range map[string]string{
		`{"kind":"request","url":"u"}`:          `{"kind":"request","url":"u","reason":"throttled"}`,
		`{"url":"u","reason":"old","x":[1, 2]}`: `{"url":"u","x":[1, 2],"reason":"throttled"}`,
		`{}`:                                    `{"reason":"throttled"}`,
		` {"a":"<&>"} `:                         `{"a":"<&>","reason":"throttled"}`,
	} {
		if got := string(withField([]byte(in), "reason", "throttled")); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
