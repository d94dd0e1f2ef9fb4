package policy

import (
	"encoding/json"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

func TestExempt(t *testing.T) {
	tests := []struct {
		name  string
		extra map[string]json.RawMessage
		want  bool
	}{
		{"a plain request", nil, false},
		{"another unknown field", map[string]json.RawMessage{"round": json.RawMessage(`2`)}, false},
		{"a file of an item", map[string]json.RawMessage{FilesItemField: json.RawMessage(`{"item":{},"pending":["https://img.example/a.jpg"]}`)}, true},
		{"spaces before the object", map[string]json.RawMessage{FilesItemField: json.RawMessage(" \n{}")}, true},
		{"null is no item", map[string]json.RawMessage{FilesItemField: json.RawMessage(`null`)}, false},
		{"a string is no item", map[string]json.RawMessage{FilesItemField: json.RawMessage(`"x"`)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &record.Request{URL: "https://img.example/a.jpg", Extra: tt.extra}
			if got := Exempt(req); got != tt.want {
				t.Errorf("Exempt = %v, want %v", got, tt.want)
			}
		})
	}
}
