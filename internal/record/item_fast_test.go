package record

import (
	"reflect"
	"testing"
)

var itemCases = []string{
	`{"kind":"item","type":"product","data":{"title":"A","price":1.10},"url":"https://a.example/","crawlid":"c1","appid":"shop","attrs":{"n":12345678901234567890},"fetched_at":"2026-11-21T05:40:12.123Z","round":2}`,
	`{"kind":"item","data":null}`,
	`{"kind":"item","data":[1]}`,
	`{"kind":"item","type":5,"data":{}}`,
	`{"kind":"item","data":{},"url":5}`,
	`{"kind":"item","data":{},"Type":"x"}`,
	`{"kind":"item","Kind":"request","data":{}}`,
	`{"kind":"item","data":{"a":1},"data":{"b":2}}`,
	`{"kind":"item","type":null,"attrs":null}`,
	`{"kind":"item","type":"\u00e9\ud800","data":{}}`,
	`{"kind":"item","fetched_at":{},"data":{}}`,
	`{"kind":"item","data":{}`,
	`[]`,
}

// FuzzDecodeItem: Decode of an item, and its fast path where it takes the
// line, give what encoding/json gives: the same error or the same item.
func FuzzDecodeItem(f *testing.F) {
	for _, c := range itemCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got, want Item
		err := Decode(raw, &got)
		werr := decodeSlow(raw, &want)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("Decode(%q) error %v, encoding/json %v", raw, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q)\n got %#v\nwant %#v", raw, got, want)
		}
		var direct Item
		if decodeItem(raw, &direct) && (werr != nil || !reflect.DeepEqual(direct, want)) {
			t.Fatalf("decodeItem(%q)\n got %#v\nwant %#v (error %v)", raw, direct, want, werr)
		}
		if fields, ok := ScanObject(raw); ok {
			var scanned Item
			ferr := DecodeItemFields(raw, fields, &scanned)
			if (ferr == nil) != (werr == nil) || ferr != nil && ferr.Error() != werr.Error() || ferr == nil && !reflect.DeepEqual(scanned, want) {
				t.Fatalf("DecodeItemFields(%q)\n got %#v (error %v)\nwant %#v (error %v)", raw, scanned, ferr, want, werr)
			}
		}
	})
}

// TestCheckItem: an item's data must be there and be an object, in the
// words cexport and cdedupe both report it in.
func TestCheckItem(t *testing.T) {
	for line, want := range map[string]string{
		`{"kind":"item","data":{"a":1}}`: ``,
		`{"kind":"item","data":{}}`:      ``,
		`{"kind":"item"}`:                `field "data" is missing`,
		`{"kind":"item","data":null}`:    `field "data": expected an object, got null`,
		`{"kind":"item","data":[1]}`:     `field "data": expected an object, got an array`,
		`{"kind":"item","data":"s"}`:     `field "data": expected an object, got a string`,
		`{"kind":"item","data":1.5}`:     `field "data": expected an object, got a number`,
		`{"kind":"item","data":true}`:    `field "data": expected an object, got a boolean`,
	} {
		var it Item
		if err := Decode([]byte(line), &it); err != nil {
			t.Fatalf("Decode(%s): %v", line, err)
		}
		err := CheckItem(&it)
		if (want == "" && err != nil) || (want != "" && (err == nil || err.Error() != want)) {
			t.Errorf("CheckItem(%s) = %v, want %q", line, err, want)
		}
	}
}
