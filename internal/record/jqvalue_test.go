package record

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/itchyny/gojq"
)

// TestJQValueKeepsNumbersAsWritten: a number a jq path hands back is
// written as it was read (cdedupe --key .data.a dropped an item whose
// value was 1e999: it became +Inf, which encoding/json cannot write), and
// arithmetic still computes with it.
func TestJQValueKeepsNumbersAsWritten(t *testing.T) {
	in := `{"a":1e999,"b":12345678901234567890,"c":0.10000000000000001,"d":1.10,"e":-0,"n":[1,2.5]}`
	for _, c := range []struct{ query, want string }{
		{".a", "1e999"},
		{".b", "12345678901234567890"},
		{".c", "0.10000000000000001"},
		{".d", "1.10"},
		{".e", "-0"},
		{"[.n[], .d]", "[1,2.5,1.10]"},
		{"{x: .d, y: .a}", `{"x":1.10,"y":1e999}`},
		{".b + 1", "12345678901234567891"},
		{".n | add", "3.5"},
		{".d == 1.1", "true"},
		{".a > .b", "true"},
		{"[.d, .c] | sort", "[0.10000000000000001,1.10]"},
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		q, err := gojq.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := q.Run(JQValue(v)).Next()
		if err, ok := out.(error); ok {
			t.Fatalf("%s: %v", c.query, err)
		}
		got, err := json.Marshal(out)
		if err != nil || string(got) != c.want {
			t.Errorf("%s = %s, %v; want %s", c.query, got, err, c.want)
		}
	}
}
