// Package record defines the NDJSON records that crawlutils commands exchange:
// request, response, item and ack (docs/records.md is the user-facing contract).
//
// A record is one JSON object per line with a "kind" field. Every typed record
// keeps the fields it does not know in Extra and writes them back unchanged, so
// a tool can read, change and re-emit a record without losing what an upstream
// tool or a user's jq step added. Numbers that are not ours (attrs, item data)
// stay json.RawMessage, so they round-trip exactly.
//
// Parse classifies one input line without decoding it fully; Decode and Encode
// turn a line into a typed record and back. ScanObject reads the top-level
// members of a JSON object in one validating pass that accepts exactly what
// encoding/json accepts, and ParseFields is Parse that returns them too, so a
// command can use the fields of a large record (a response is mostly its
// body) without scanning it again; Unquote decodes one of their string values.
package record
