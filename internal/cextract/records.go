package cextract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/record"
)

// decodeResponse decodes a response record and the request inside it;
// fields, when not nil, are its top-level fields from classify.
func decodeResponse(raw []byte, fields []record.Field) (*record.Response, *record.Request, error) {
	if fields != nil {
		if resp, req, ok := decodeFast(fields); ok {
			return resp, req, nil
		}
	}
	var resp record.Response
	if err := record.Decode(raw, &resp); err != nil {
		return nil, nil, err
	}
	var req record.Request
	if len(resp.Request) > 0 && !bytes.Equal(resp.Request, []byte("null")) {
		if err := record.Decode(resp.Request, &req); err != nil {
			return nil, nil, fmt.Errorf("field \"request\": %v", err)
		}
	}
	return &resp, &req, nil
}

// appendJSONString appends s as a JSON string as encoding/json writes it
// with SetEscapeHTML(false).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// appendItem appends an item record (with its newline) exactly as
// record.Encode writes it, without re-validating data, which the item
// writer built compactly itself.
func appendItem(b []byte, typ string, data []byte, url, crawlID, appID string, attrs []byte, fetchedAt string) []byte {
	b = append(b, `{"kind":"item"`...)
	if typ != "" {
		b = append(b, `,"type":`...)
		b = appendJSONString(b, typ)
	}
	b = append(b, `,"data":`...)
	b = append(b, data...)
	for _, f := range [...]struct{ key, val string }{{`,"url":`, url}, {`,"crawlid":`, crawlID}, {`,"appid":`, appID}} {
		if f.val != "" {
			b = append(b, f.key...)
			b = appendJSONString(b, f.val)
		}
	}
	if len(attrs) > 0 {
		b = append(b, `,"attrs":`...)
		if bytes.ContainsAny(attrs, " \t\r\n") {
			var c bytes.Buffer
			if json.Compact(&c, attrs) == nil {
				attrs = c.Bytes()
			}
		}
		b = append(b, attrs...)
	}
	if fetchedAt != "" {
		b = append(b, `,"fetched_at":`...)
		b = appendJSONString(b, fetchedAt)
	}
	return append(b, '}', '\n')
}
