package record

import (
	"encoding/json"
	"strings"
)

// The fast paths for requests, the records every tool of the crawl loop
// decodes and encodes (cqueue push, cfetch, cextract, the frontier).
// encoding/json spends most of its time on reflection; these read and write
// a Request directly. They take only the plain cases and report ok false
// for anything unusual (a value of another JSON type, a key that matches a
// field only without regard to case, a repeated field, a number with a
// fraction or too many digits, invalid attrs, …); Decode and Encode then run
// encoding/json, so results and errors are always exactly encoding/json's.
// The fuzz targets FuzzDecodeRequest and FuzzEncodeRequest hold the two
// paths to that.

// requestKeys are the JSON names of Request's fields.
var requestKeys = knownKeys((*Request)(nil))

// zeroRequest reports whether every field of r but Extra is zero.
// encoding/json decodes into what is there (it keeps fields the input does
// not name, merges maps, reuses slices), so the fast path takes only a
// zero request. Decode overwrites Extra anyway.
func zeroRequest(r *Request) bool {
	return r.Kind == "" && r.URL == "" && r.Method == "" && r.Headers == nil && r.Body == "" &&
		r.Priority == 0 && r.Depth == 0 && r.Referer == "" && !r.DontFilter && r.Retries == 0 &&
		r.CrawlID == "" && r.AppID == "" && r.SpiderID == "" &&
		r.MaxDepth == 0 && r.AllowedDomains == nil && r.AllowRegex == nil && r.DenyRegex == nil &&
		r.DenyExtensions == nil && r.Expires == 0 && r.UserAgent == "" && r.Attrs == nil &&
		r.Redirects == nil && r.Lease == ""
}

// decodeRequest decodes the JSON object raw into r, which must be zero but
// for Extra, as encoding/json and unknownFields would. ok is false when
// raw is not a valid object or holds anything decodeRequest leaves to
// encoding/json; r is then partly written and must be reset.
func decodeRequest(raw []byte, r *Request) (ok bool) {
	r.Extra = nil
	var seen uint32 // the fields already decoded, by bit
	ok = true
	valid := scanObject(raw, func(key, value []byte) {
		if ok {
			ok = decodeRequestMember(r, key, value, &seen)
		}
	})
	return valid && ok
}

// decodeRequestMember decodes one top-level member of a request.
func decodeRequestMember(r *Request, key, v []byte, seen *uint32) bool {
	var bit uint32
	var ok bool
	switch string(key) {
	case "kind":
		bit, ok = 1<<0, decodeKind(v, &r.Kind)
	case "url":
		bit, ok = 1<<1, decodeString(v, &r.URL)
	case "method":
		bit, ok = 1<<2, decodeString(v, &r.Method)
	case "headers":
		bit, ok = 1<<3, decodeHeaders(v, &r.Headers)
	case "body":
		bit, ok = 1<<4, decodeString(v, &r.Body)
	case "priority":
		bit, ok = 1<<5, decodeInt(v, &r.Priority)
	case "depth":
		bit, ok = 1<<6, decodeInt(v, &r.Depth)
	case "referer":
		bit, ok = 1<<7, decodeString(v, &r.Referer)
	case "dont_filter":
		bit, ok = 1<<8, decodeBool(v, &r.DontFilter)
	case "retries":
		bit, ok = 1<<9, decodeInt(v, &r.Retries)
	case "crawlid":
		bit, ok = 1<<10, decodeString(v, &r.CrawlID)
	case "appid":
		bit, ok = 1<<11, decodeString(v, &r.AppID)
	case "spiderid":
		bit, ok = 1<<12, decodeString(v, &r.SpiderID)
	case "maxdepth":
		bit, ok = 1<<13, decodeInt(v, &r.MaxDepth)
	case "allowed_domains":
		bit, ok = 1<<14, decodeStrings(v, &r.AllowedDomains)
	case "allow_regex":
		bit, ok = 1<<15, decodeStrings(v, &r.AllowRegex)
	case "deny_regex":
		bit, ok = 1<<16, decodeStrings(v, &r.DenyRegex)
	case "deny_extensions":
		bit, ok = 1<<17, decodeStrings(v, &r.DenyExtensions)
	case "expires":
		bit, ok = 1<<18, decodeInt(v, &r.Expires)
	case "useragent":
		bit, ok = 1<<19, decodeString(v, &r.UserAgent)
	case "attrs":
		// As json.RawMessage.UnmarshalJSON: a copy, null included.
		bit, ok = 1<<20, true
		r.Attrs = append(json.RawMessage(nil), v...)
	case "lease":
		bit, ok = 1<<21, decodeString(v, &r.Lease)
	default:
		// A field added to Request but not above, or a key encoding/json
		// matches to a field without regard to case: encoding/json's. A
		// key like "Kind" is not the kind (Decode): an unknown member.
		if requestKeys[string(key)] || foldsToRequestKey(key) && !isKindLookalike(key) {
			return false
		}
		if r.Extra == nil {
			r.Extra = map[string]json.RawMessage{}
		}
		r.Extra[string(key)] = json.RawMessage(v) // the last one wins, as in unknownFields
		return true
	}
	// A repeated field: encoding/json decodes into what the first one left
	// (maps merge, slices are reused); not worth copying.
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return ok
}

// foldsToRequestKey reports whether key, not one of requestKeys, names a
// field of Request for encoding/json, which matches keys with Unicode
// simple folding: "URL", "Depth", "\u212aind" (the Kelvin sign).
func foldsToRequestKey(key []byte) bool { return foldsToKey(requestKeys, key) }

// foldsToKey reports whether key, not one of keys (a record type's JSON
// names), names one of them for encoding/json, which matches keys with
// Unicode simple folding.
func foldsToKey[K string | []byte](keys map[string]bool, key K) bool {
	plain := true // lower-case ASCII only: it folds to a name only if it is one
	for i := range len(key) {
		if c := key[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			plain = false
			break
		}
	}
	if plain {
		return false
	}
	for name := range keys {
		if strings.EqualFold(string(key), name) {
			return true
		}
	}
	return false
}
