package cfetch

import (
	"bytes"
	"encoding/base64"
	"errors"

	"github.com/crawlutils/crawlutils/internal/record"
)

// response is a response record on its way to the writer. Its body stays
// bytes — the text in UTF-8 for "body", or the bytes for "body_base64" —
// escaped or encoded straight into the record's line: a large page is
// never copied into a Go string, nor into an encoder's growing buffer.
type response struct {
	*record.Response
	text []byte // "body": UTF-8 text (in body's buffer, or converted)
	bin  []byte // "body_base64": the bytes to encode
	body *body  // the body text or bin is in, until the line is made
	// res holds the response's bytes in the memory budget (--max-memory):
	// the body, the converted text, then the line until it is written.
	res *reservation
}

// dropBody forgets the body and gives its memory back.
func (r *response) dropBody() {
	r.text, r.bin = nil, nil
	if r.body != nil {
		r.body.release()
		r.body = nil
	}
}

// release gives back everything the response holds, line included.
func (r *response) release() {
	r.dropBody()
	r.res.release()
}

// tailOpen starts the encoding of a record.Response whose kind and url are
// empty: the fields before its body, kind and url, are never omitted.
const tailOpen = `{"kind":"","url":""`

// line encodes the response as record.Encode would encode it with its
// body in Body or BodyBase64, and gives the body back: afterwards only the
// line is held in the budget, until the writer releases it. The line is
// made in one buffer of its exact length, reserved first: the fields
// before the body, the body written from its bytes, the fields after it.
func (r *response) line() ([]byte, error) {
	if len(r.text) == 0 && len(r.bin) == 0 {
		r.release() // a record without a body is not counted
		return record.Encode(r.Response)
	}
	head := record.Response{Kind: r.Kind, URL: r.URL, Request: r.Request, Status: r.Status, Headers: r.Headers}
	tail := *r.Response
	tail.Kind, tail.URL, tail.Request, tail.Status, tail.Headers = "", "", nil, 0, nil
	tail.Body, tail.BodyBase64 = "", ""
	a, err := record.Encode(&head)
	if err != nil {
		return nil, err
	}
	b, err := record.Encode(&tail)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte(tailOpen)) || !bytes.HasSuffix(a, []byte("}\n")) {
		return nil, errors.New("unexpected encoding of a response record")
	}
	name, n := `,"body":`, 0
	if len(r.text) > 0 {
		n = record.StringLen(r.text)
	} else {
		name, n = `,"body_base64":`, base64.StdEncoding.EncodedLen(len(r.bin))+2
	}
	size := len(a) - 2 + len(name) + n + len(b) - len(tailOpen)
	r.res.growWait(int64(size))
	line := make([]byte, 0, size)
	line = append(line, a[:len(a)-2]...)
	line = append(line, name...)
	if len(r.text) > 0 {
		line = record.AppendString(line, r.text)
	} else {
		line = append(line, '"')
		line = base64.StdEncoding.AppendEncode(line, r.bin)
		line = append(line, '"')
	}
	line = append(line, b[len(tailOpen):]...)
	r.dropBody()
	r.res.shrink(r.res.size() - int64(len(line)))
	return line, nil
}
