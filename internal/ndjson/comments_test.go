package ndjson

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestReaderComments: a list written by hand (Reader.Comments) skips its
// blank lines and # comments, and the lines after them keep their numbers.
func TestReaderComments(t *testing.T) {
	in := BOM + "# seeds\nhttp://a.test/\n\n   \n  # later\nhttp://b.test/ # not a comment\n#\n"
	r := NewReader(nil, strings.NewReader(in))
	r.Comments = true
	var got []string
	for {
		line, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d:%s", line.Num, line.Bytes))
	}
	if want := "[2:http://a.test/ 6:http://b.test/ # not a comment]"; fmt.Sprint(got) != want {
		t.Errorf("lines %v, want %s", got, want)
	}
}
