package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Envelope is one input line, classified but not decoded.
type Envelope struct {
	// Kind is the record's "kind" field; "" for an object without one.
	Kind string
	// Raw is the JSON object. For a bare URL line it is a synthesized
	// request record.
	Raw []byte
	// Bare is true when the line was a bare URL rather than JSON.
	Bare bool
}

// ErrEmpty is returned by Parse for a line with nothing but white space.
var ErrEmpty = errors.New("empty line")

// Parse classifies one line (without its newline): a JSON object, or a bare
// URL such as https://example.com/, which becomes a request record. Anything
// else is an error saying what was wrong, suitable after "<source>:<line>: ".
func Parse(line []byte) (Envelope, error) {
	b := bytes.TrimSpace(line)
	if len(b) == 0 {
		return Envelope{}, ErrEmpty
	}
	switch b[0] {
	case '{':
		var head struct {
			Kind json.RawMessage `json:"kind"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return Envelope{}, describe(err)
		}
		var kind string
		if len(head.Kind) > 0 && string(head.Kind) != "null" {
			if err := json.Unmarshal(head.Kind, &kind); err != nil {
				return Envelope{}, fmt.Errorf("field \"kind\": expected a string, got %s", head.Kind)
			}
		}
		return Envelope{Kind: kind, Raw: b}, nil
	case '[':
		if json.Valid(b) {
			return Envelope{}, errors.New("expected a JSON object, got an array (one record per line: try jq -c '.[]')")
		}
		return Envelope{}, describe(json.Unmarshal(b, new(any)))
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if json.Valid(b) {
			return Envelope{}, fmt.Errorf("expected a JSON object or a URL, got %s", jsonTypeName(b))
		}
	case 't', 'f', 'n':
		if json.Valid(b) {
			return Envelope{}, fmt.Errorf("expected a JSON object or a URL, got %s", b)
		}
	}
	u, err := bareURL(b)
	if err != nil {
		return Envelope{}, err
	}
	raw, _ := Encode(&Request{Kind: KindRequest, URL: u})
	return Envelope{Kind: KindRequest, Raw: raw[:len(raw)-1], Bare: true}, nil
}

func jsonTypeName(b []byte) string {
	if b[0] == '"' {
		return "a string"
	}
	return "a number"
}

// bareURL accepts a line holding one absolute URL.
func bareURL(b []byte) (string, error) {
	s := string(b)
	if !utf8.ValidString(s) {
		return "", errors.New("not a JSON object or a URL (invalid UTF-8)")
	}
	if strings.ContainsAny(s, " \t\"{}<>") {
		return "", fmt.Errorf("not a JSON object or a URL: %s", Snippet(b, 60))
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("not a JSON object or a URL: %s", strings.TrimPrefix(err.Error(), "parse "))
	}
	if u.Scheme == "" {
		if strings.Contains(s, ".") && !strings.HasPrefix(s, "/") {
			return "", fmt.Errorf("URL without a scheme: %s (did you mean https://%s?)", Snippet(b, 60), s)
		}
		return "", fmt.Errorf("not a JSON object or a URL: %s", Snippet(b, 60))
	}
	return s, nil
}

// Snippet shortens b for an error message, marking the cut.
func Snippet(b []byte, max int) string {
	if len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", b[:cut], len(b))
}

// Field is one member of a JSON object, in document order.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Fields returns the members of the JSON object raw in the order they appear
// (encoding/json's maps lose it, and CSV columns depend on it). Values are
// slices of raw, so numbers stay exact.
func Fields(raw []byte) ([]Field, error) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || b[0] != '{' {
		if !json.Valid(b) {
			return nil, describe(json.Unmarshal(b, new(any)))
		}
		return nil, errors.New("expected a JSON object")
	}
	if !json.Valid(b) {
		return nil, describe(json.Unmarshal(b, new(any)))
	}
	var out []Field
	i := 1
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return out, nil
		}
		kStart := i
		i = skipString(b, i)
		key := string(b[kStart+1 : i-1])
		if !plainKey(key) {
			if err := json.Unmarshal(b[kStart:i], &key); err != nil {
				return nil, describe(err)
			}
		}
		i = skipSpace(b, i)
		i = skipSpace(b, i+1) // past ':'
		vStart := i
		i = skipValue(b, i)
		// A later duplicate key wins, as in encoding/json.
		dup := false
		for j := range out {
			if out[j].Key == key {
				out[j].Value = json.RawMessage(b[vStart:i])
				dup = true
			}
		}
		if !dup {
			out = append(out, Field{Key: key, Value: json.RawMessage(b[vStart:i])})
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ',' {
			return out, nil
		}
		i++
	}
}
