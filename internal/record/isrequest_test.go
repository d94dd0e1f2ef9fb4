package record

import "testing"

func TestIsRequest(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"kind":"request","url":"https://a/"}`, true},
		{`{"kind":"request"}`, true},
		{`https://a/`, true},
		{`{"url":"https://a/","appid":"x","crawlid":"y"}`, true},
		{`{"url":"https://a/","priority":1.5}`, true},
		{`{"url":5}`, true},
		{`{"url":null}`, true},
		{`{"URL":"https://a/"}`, true},
		{`{"a":{"url":"x"}}`, false},
		{`{"title":"x"}`, false},
		{`{}`, false},
		{`{"kind":"item","url":"https://a/"}`, false},
		{`{"kind":"response","url":"https://a/"}`, false},
		{`{"kind":"ack","lease":"l","url":"https://a/"}`, false},
	} {
		env, err := Parse([]byte(c.line))
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.line, err)
		}
		if got := env.IsRequest(); got != c.want {
			t.Errorf("IsRequest(%s) = %v, want %v", c.line, got, c.want)
		}
	}
}
