// Package record defines the NDJSON records that crawlutils commands exchange:
// request, response, item and ack (docs/records.md is the user-facing contract).
//
// A record is one JSON object per line with a "kind" field: the member named
// exactly "kind" (a "Kind" is an ordinary member, although encoding/json
// would decode it into a field tagged "kind"). Every typed record
// keeps the fields it does not know in Extra and writes them back unchanged, so
// a tool can read, change and re-emit a record without losing what an upstream
// tool or a user's jq step added. Numbers that are not ours (attrs, item data)
// stay json.RawMessage, so they round-trip exactly.
//
// Records are validated where they are read, so every command refuses the
// same things with the same words: Parse replaces invalid UTF-8 with U+FFFD
// and an escaped lone surrogate with \ufffd (as encoding/json decodes
// them), so a record passed on unchanged is still JSON that jq reads; Decode's errors name the JSON field, and it refuses a request whose
// numbers are out of their bounds (MaxRetries, MaxPriority, MaxDepth, …);
// Envelope.IsRequest says what is a request, with or without a kind.
//
// Parse classifies one input line without decoding it fully; Decode and Encode
// turn a line into a typed record and back. ScanObject reads the top-level
// members of a JSON object in one validating pass that accepts exactly what
// encoding/json accepts, and ParseFields is Parse that returns them too, so a
// command can use the fields of a large record (a response is mostly its
// body) without scanning it again; Unquote decodes one of their string values,
// and StringReader reads one decoded as a stream, for a string too large to
// hold twice (the body of a 50 MB sitemap).
package record
