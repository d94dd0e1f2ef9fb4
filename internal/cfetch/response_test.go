package cfetch

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// TestResponseLineIsRecordEncode: the line made from a body's bytes is,
// byte for byte, the line record.Encode makes of the same record with the
// body in a string, whatever the other fields hold.
func TestResponseLineIsRecordEncode(t *testing.T) {
	texts := []string{
		"<p>plain</p>",
		"quotes \" and \\ and </script> & <b>",
		"\x00\x01\b\f\n\r\t\x1f\x7f",
		"é日本語 \u2028 \u2029 😀",
		"bad \xff\xfe UTF-8 \xe2\x80 cut",
		"\xed\xa0\x80 surrogate",
	}
	bases := []record.Response{
		{Kind: record.KindResponse, URL: "https://a.example/"},
		{
			Kind: record.KindResponse, URL: "https://a.example/ü?q=\"x\"",
			Request: json.RawMessage(`{"url":"https://a.example/","attrs":{"body":"not this","n":1e999}}`),
			Status:  200, Headers: map[string]string{"content-type": "text/html", "x-evil": `","body":"x`},
			Encoding: "utf-8", EncodingSource: "header",
			Redirects: []record.Redirect{{URL: "https://a.example/old", Status: 301}},
			Retries:   2, Size: 12, LatencyMS: 1.5, DurationMS: 2.25, FetchedAt: "2026-01-02T03:04:05.000Z",
			Warnings:        []string{"body of 12 bytes is over --warn-size 1"},
			RedirectRequest: json.RawMessage(`{"kind":"request","url":"https://a.example/next"}`),
			Extra:           map[string]json.RawMessage{"a_first": json.RawMessage(`1`), "zz": json.RawMessage(`{"k":"v"}`)},
		},
		{Kind: record.KindResponse, URL: "https://a.example/", Request: json.RawMessage("{\"url\":\"https://a.example/\xff\"}"), Error: ErrTimeout, ErrorDetail: "slow"},
	}
	for _, base := range bases {
		for _, text := range texts {
			want := base
			want.Body = text
			wantLine, err := record.Encode(&want)
			if err != nil {
				t.Fatal(err)
			}
			r := &response{Response: new(base), text: []byte(text)}
			got, err := r.line()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, wantLine) {
				t.Errorf("text %q:\n got %s\nwant %s", text, got, wantLine)
			}
			if len(got) != cap(got) {
				t.Errorf("text %q: line of %d bytes in a buffer of %d: its length was not computed exactly", text, len(got), cap(got))
			}

			bin := []byte(text)
			want = base
			want.BodyBase64 = base64.StdEncoding.EncodeToString(bin)
			wantLine, _ = record.Encode(&want)
			r = &response{Response: new(base), bin: bin}
			if got, _ = r.line(); !bytes.Equal(got, wantLine) {
				t.Errorf("binary %q:\n got %s\nwant %s", text, got, wantLine)
			}
		}
	}
}

// TestResponseLineGivesBackTheBody: once the line is made, the response
// holds only the line's bytes in the budget; the writer gives those back.
func TestResponseLineGivesBackTheBody(t *testing.T) {
	mem := newBudget(1 << 20)
	res := mem.reserve()
	b := &body{res: res}
	if err := b.readFrom(t.Context(), bytes.NewReader(bytes.Repeat([]byte("a\n"), 5000)), 10000, -1); err != nil {
		t.Fatal(err)
	}
	b.data = b.buf
	if got := res.size(); got < 10000 {
		t.Fatalf("a body of 10000 bytes holds %d", got)
	}
	r := &response{Response: &record.Response{Kind: record.KindResponse, URL: "https://a.example/"}, text: b.data, body: b, res: res}
	line, err := r.line()
	if err != nil {
		t.Fatal(err)
	}
	if got := res.size(); got != int64(len(line)) {
		t.Errorf("after the line is made, %d bytes held; want the line's %d", got, len(line))
	}
	res.release()
	checkIdle(t, mem)
}

// FuzzAppendJSONString: the body is escaped exactly as encoding/json
// escapes a string (without HTML escaping), and jsonLen is its length.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "abc", "\x00\x1f\x7f\"\\/<>&", "\b\f\n\r\t", "é日本\u2028\u2029", "\xff\xfe a \xe2\x80", "\xf0\x9f\x98"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(string(b)); err != nil {
			t.Fatal(err)
		}
		w := bytes.TrimSuffix(want.Bytes(), []byte("\n"))
		if got := record.AppendString([]byte("x"), b); !bytes.Equal(got[1:], w) {
			t.Fatalf("record.AppendString(%q) = %s, want %s", b, got[1:], w)
		}
		if n := record.StringLen(b); n != len(w) {
			t.Fatalf("record.StringLen(%q) = %d, want %d", b, n, len(w))
		}
	})
}
