package record

import (
	"encoding/json"
	"math/big"
)

// JQValue turns a value decoded with json.Decoder.UseNumber into the
// values gojq takes, in place: json.Number becomes int, *big.Int for an
// integer past int64 (kept exact), or float64 for the rest; maps and
// slices are walked.
func JQValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		if b, ok := new(big.Int).SetString(string(x), 10); ok {
			return b
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for key, val := range x {
			x[key] = JQValue(val)
		}
	case []any:
		for i, val := range x {
			x[i] = JQValue(val)
		}
	}
	return v
}
