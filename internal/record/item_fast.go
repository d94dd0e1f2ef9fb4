package record

import "encoding/json"

// The fast path for items, which cexport and cdedupe decode one by one
// (an export of a million items): as decodeRequest, it takes the plain
// cases and leaves the rest to encoding/json, so results and errors are
// always encoding/json's; FuzzDecodeItem holds the two paths to that.

// itemKeys are the JSON names of Item's fields.
var itemKeys = knownKeys((*Item)(nil))

// zeroItem reports whether every field of it but Extra is zero.
func zeroItem(it *Item) bool {
	return it.Kind == "" && it.Type == "" && it.Data == nil && it.URL == "" && it.CrawlID == "" &&
		it.AppID == "" && it.Attrs == nil && it.FetchedAt == ""
}

// decodeItem decodes the JSON object raw into it, which must be zero but
// for Extra, as encoding/json and unknownFields would. ok is false when raw
// is not a valid object or holds anything decodeItem leaves to
// encoding/json; it is then partly written and must be reset.
func decodeItem(raw []byte, it *Item) (ok bool) {
	it.Extra = nil
	var seen uint32 // the fields already decoded, by bit
	ok = true
	valid := scanObject(raw, func(key, v []byte) {
		ok = ok && decodeItemMember(it, key, v, &seen)
	})
	if !valid || !ok {
		return false
	}
	// As json.RawMessage.UnmarshalJSON: copies, null included.
	if it.Data != nil {
		it.Data = append(json.RawMessage(nil), it.Data...)
	}
	if it.Attrs != nil {
		it.Attrs = append(json.RawMessage(nil), it.Attrs...)
	}
	return true
}

// DecodeItemFields is Decode of the item raw whose top-level members
// were scanned already (ParseFields, ScanObject): the same item, or the
// same error, without reading raw again where it can (cexport's hot
// path). Data, Attrs and Extra's values are slices of raw, not copies.
func DecodeItemFields(raw []byte, fields []Field, it *Item) error {
	*it = Item{}
	var seen uint32
	for _, f := range fields {
		if !decodeItemMember(it, f.Key, f.Value, &seen) {
			*it = Item{}
			return decodeSlow(raw, it)
		}
	}
	return nil
}

// decodeItemMember decodes one top-level member of an item; Data and
// Attrs are v itself.
func decodeItemMember[K string | []byte](it *Item, key K, v []byte, seen *uint32) bool {
	var bit uint32
	var ok bool
	switch string(key) {
	case "kind":
		bit, ok = 1<<0, decodeKind(v, &it.Kind)
	case "type":
		bit, ok = 1<<1, decodeString(v, &it.Type)
	case "data":
		bit, ok = 1<<2, true
		it.Data = v
	case "url":
		bit, ok = 1<<3, decodeString(v, &it.URL)
	case "crawlid":
		bit, ok = 1<<4, decodeString(v, &it.CrawlID)
	case "appid":
		bit, ok = 1<<5, decodeString(v, &it.AppID)
	case "attrs":
		bit, ok = 1<<6, true
		it.Attrs = v
	case "fetched_at":
		bit, ok = 1<<7, decodeString(v, &it.FetchedAt)
	default:
		// A field added to Item but not above, or a key encoding/json
		// matches to a field without regard to case: encoding/json's. A
		// key like "Kind" is not the kind (Decode): an unknown member.
		if itemKeys[string(key)] || foldsToKey(itemKeys, key) && !isKindLookalike(key) {
			return false
		}
		if it.Extra == nil {
			it.Extra = map[string]json.RawMessage{}
		}
		it.Extra[string(key)] = json.RawMessage(v) // the last one wins, as in unknownFields
		return true
	}
	// A repeated field: left to encoding/json, as for a request.
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return ok
}
