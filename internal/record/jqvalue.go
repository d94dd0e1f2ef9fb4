package record

// JQValue turns a value decoded with json.Decoder.UseNumber into gojq's
// input. gojq takes json.Number as it is: a path such as .data.price gives
// it back unchanged, so it is written as it was read (1e999, 1.10 and
// 12345678901234567890 stay so, as in jq 1.7), and arithmetic reads it as
// an int, a *big.Int or a float64 where it must. Converting it first, as
// this once did, made 1e999 +Inf, which encoding/json cannot write, and
// folded 0.1 and 0.10000000000000001 into one value. So v is returned as
// it is; JQValue stays the one place that says what gojq is given.
func JQValue(v any) any { return v }
