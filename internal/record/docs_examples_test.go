package record

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/crawlutils/crawlutils/internal/docblocks"
)

// TestDocsRecordExamples: every ```json block of README.md and docs/*.md
// is JSON (a block showing one member of an object, "files": […], is the
// object's member), and every record it shows (an object with a "kind"
// of request, response, item or ack) is a valid record of its kind, as
// Decode reads it, with no field that is neither its struct's nor one
// docs/records.md documents for it (docFieldsOnly); a response's request
// too. A user who copies one into a pipeline has a record the tools take.
func TestDocsRecordExamples(t *testing.T) {
	blocks, err := docblocks.Read("../..", "json")
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	for _, b := range blocks {
		where, body := b.String(), []byte(b.Body)
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			if err2 := json.Unmarshal(append(append([]byte("{"), body...), '}'), &v); err2 != nil {
				t.Errorf("%s: not JSON: %v\n%s", where, err, body)
				continue
			}
		}
		obj, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if kind, _ := obj["kind"].(string); kind != "" {
			records++
			checkDocRecord(t, where, kind, body)
		}
	}
	if records < 8 {
		t.Errorf("%d records shown in ```json blocks; want those of docs/records.md and more", records)
	}
}

// checkDocRecord decodes a record of the docs as its kind.
func checkDocRecord(t *testing.T, where, kind string, raw []byte) {
	t.Helper()
	var extra map[string]json.RawMessage
	var err error
	switch kind {
	case KindRequest:
		var r Request
		err = Decode(raw, &r)
		extra = r.Extra
	case KindResponse:
		var r Response
		if err = Decode(raw, &r); err == nil && r.Request != nil {
			checkDocRecord(t, where+" (its request)", KindRequest, r.Request)
		}
		extra = r.Extra
	case KindItem:
		var r Item
		err = Decode(raw, &r)
		extra = r.Extra
	case KindAck:
		var r Ack
		err = Decode(raw, &r)
		extra = r.Extra
	default:
		t.Errorf("%s: a record of kind %q, which is none of the four", where, kind)
		return
	}
	if err != nil {
		t.Errorf("%s: not a valid %s: %v\n%s", where, kind, err, raw)
	}
	for name := range extra {
		if !slices.Contains(docFieldsOnly[kind], name) {
			t.Errorf("%s: the %s shows a field %q that a %s does not have (docs/records.md)", where, kind, name, kind)
		}
	}
}
