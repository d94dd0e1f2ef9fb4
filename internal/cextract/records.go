package cextract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/crawlutils/crawlutils/internal/record"
)

// decodeResponse decodes a response record and the request inside it;
// fields, when not nil, are its top-level fields from record.ParseFields.
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

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// appendItem appends an item record (with its newline) exactly as
// record.Encode writes it, without re-validating data, which the item
// writer built compactly itself.
func appendItem(b []byte, typ string, data []byte, url, crawlID, appID string, attrs []byte, fetchedAt string) []byte {
	b = append(b, `{"kind":"item"`...)
	if typ != "" {
		b = append(b, `,"type":`...)
		b = record.AppendString(b, typ)
	}
	b = append(b, `,"data":`...)
	b = append(b, record.ValidUTF8(data)...) // as record.Encode writes a raw member
	for _, f := range [...]struct{ key, val string }{{`,"url":`, url}, {`,"crawlid":`, crawlID}, {`,"appid":`, appID}} {
		if f.val != "" {
			b = append(b, f.key...)
			b = record.AppendString(b, f.val)
		}
	}
	if len(attrs) > 0 {
		attrs = record.ValidUTF8(attrs) // as record.Encode writes a raw member
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
		b = record.AppendString(b, fetchedAt)
	}
	return append(b, '}', '\n')
}
