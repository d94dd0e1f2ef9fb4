package cextract

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/record"
)

// The fast path for reading response records. A response line is mostly its
// body: encoding/json would scan it three or four times (classify, decode,
// collect unknown fields, look up @fields). record.ParseFields validates the
// line in one pass and returns its top-level fields; decodeFast decodes the
// fields a response needs from them. Whenever a line is not a well-typed
// response the slow path (record.Decode) runs instead, so errors and edge
// cases are exactly encoding/json's.

// decodeFast decodes a response record from its scanned fields: the fields
// cextract uses (the others stay zero; their values are checked as
// record.Decode would). ok is false when a field has a value record.Decode
// would refuse, or a key it would match to a field only without regard to
// case; the caller then decodes the slow way, for encoding/json's message.
func decodeFast(fields []record.Field) (resp *record.Response, req *record.Request, ok bool) {
	resp = &record.Response{Kind: record.KindResponse}
	req = &record.Request{}
	str := func(v json.RawMessage, dst *string) bool {
		if len(v) > 0 && v[0] == 'n' {
			return true
		}
		if len(v) == 0 || v[0] != '"' {
			return false
		}
		s, ok := record.Unquote(v)
		*dst = s
		return ok
	}
	for _, f := range fields {
		v := f.Value
		switch f.Key {
		case "url":
			ok = str(v, &resp.URL)
		case "body":
			ok = str(v, &resp.Body)
		case "body_base64":
			ok = str(v, &resp.BodyBase64)
		case "body_path":
			ok = str(v, &resp.BodyPath)
		case "error":
			ok = str(v, &resp.Error)
		case "error_detail":
			ok = str(v, &resp.ErrorDetail)
		case "fetched_at":
			ok = str(v, &resp.FetchedAt)
		case "warc_record_id":
			ok = str(v, &resp.WARCRecordID)
		case "status":
			if len(v) > 0 && v[0] == 'n' {
				ok = true
				break
			}
			n, err := strconv.Atoi(string(v))
			resp.Status, ok = n, err == nil
		case "headers":
			if len(v) > 0 && v[0] == 'n' {
				ok = true
				break
			}
			ok = json.Unmarshal(v, &resp.Headers) == nil
		case "unchanged":
			resp.Unchanged, ok = string(v) == "true", string(v) == "true" || string(v) == "false" || string(v) == "null"
		case "redirect_request":
			if len(v) > 0 && v[0] != 'n' {
				resp.RedirectRequest = v
			}
			ok = true
		case "request":
			resp.Request = v
			switch {
			case len(v) > 0 && v[0] == '{':
				ok = record.Decode(v, req) == nil
			default:
				ok = string(v) == "null"
			}
		default:
			ok = decodable(f.Key, v)
		}
		if !ok {
			return nil, nil, false
		}
	}
	return resp, req, true
}

// responseFields are the JSON names of record.Response's fields and their
// types.
var responseFields = func() (fs []responseField) {
	t := reflect.TypeFor[record.Response]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			fs = append(fs, responseField{name, t.Field(i).Type})
		}
	}
	return fs
}()

type responseField struct {
	name string
	typ  reflect.Type
}

// decodable reports whether record.Decode takes the member key: v of a
// response when decodeFast does not decode key itself: v must fit the type
// of the field named key, if there is one. It is false for a key that names
// a field only without regard to case, which encoding/json also decodes
// into that field; such rare lines are left to the slow path.
func decodable(key string, v json.RawMessage) bool {
	for _, f := range responseFields {
		if key != f.name {
			if strings.EqualFold(key, f.name) {
				return false
			}
			continue
		}
		if string(v) == "null" {
			return true
		}
		// The checks encoding/json makes, without its allocations for the
		// common kinds.
		switch f.typ.Kind() {
		case reflect.String:
			return v[0] == '"'
		case reflect.Int, reflect.Int64:
			_, err := strconv.ParseInt(string(v), 10, f.typ.Bits())
			return err == nil
		case reflect.Float64:
			_, err := strconv.ParseFloat(string(v), 64)
			return err == nil
		}
		return json.Unmarshal(v, reflect.New(f.typ).Interface()) == nil
	}
	return true
}
