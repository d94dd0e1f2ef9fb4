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

// decodeLeavingBody is decodeResponse that leaves a large body in the
// record: resp.Body is then "" and quoted is the body's JSON string, a
// slice of raw, for the page to read as a stream (see body).
func decodeLeavingBody(raw []byte, fields []record.Field) (resp *record.Response, req *record.Request, quoted []byte, err error) {
	if i := largeBody(fields); i >= 0 {
		quoted = fields[i].Value
		fields[i].Value = json.RawMessage(`""`)
		resp, req, ok := decodeFast(fields)
		fields[i].Value = quoted
		if ok {
			return resp, req, quoted, nil
		}
	}
	resp, req, err = decodeResponse(raw, fields)
	return resp, req, nil, err
}

// largeBody returns the index of the member that gives a response its
// body when that is a string of streamBodyFrom bytes or more, not empty,
// else -1. A member whose key matches "body" only without regard to case
// is left to decodeResponse (decodeFast refuses it).
func largeBody(fields []record.Field) int {
	i := -1
	for j, f := range fields {
		if f.Key == "body" && len(f.Value) > 0 && f.Value[0] == '"' {
			i = j
		}
	}
	if i < 0 || len(fields[i].Value) < max(streamBodyFrom, len(`"x"`)) {
		return -1
	}
	return i
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
	b = append(b, record.Mend(data)...) // as record.Encode writes a raw member
	for _, f := range [...]struct{ key, val string }{{`,"url":`, url}, {`,"crawlid":`, crawlID}, {`,"appid":`, appID}} {
		if f.val != "" {
			b = append(b, f.key...)
			b = record.AppendString(b, f.val)
		}
	}
	if len(attrs) > 0 {
		attrs = record.Mend(attrs) // as record.Encode writes a raw member
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

// validRound reports whether raw, a request's "round", is a round number
// (digits), the only form carried on to items and follow-ups.
func validRound(raw []byte) bool {
	if len(raw) == 0 || len(raw) > 10 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// appendRound adds "round": round to the item record b (ending "}\n"),
// the round of the crawl the page was fetched in.
func appendRound(b, round []byte) []byte {
	if !validRound(round) || !bytes.HasSuffix(b, []byte("}\n")) {
		return b
	}
	b = b[:len(b)-2]
	b = append(b, `,"round":`...)
	b = append(b, round...)
	return append(b, '}', '\n')
}
