package warc

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"hash"
	"strings"
	"time"
)

// Record types.
const (
	TypeWarcinfo = "warcinfo"
	TypeRequest  = "request"
	TypeResponse = "response"
	TypeRevisit  = "revisit"
	TypeMetadata = "metadata"
	TypeResource = "resource"
)

// Field is one named field of a record's header.
type Field struct {
	Name, Value string
}

// Record is one WARC record: its header fields, in order, and its block.
// Offset is where the record starts in its file, and Skip is 0 (set by
// Reader); in a gzip member of several records (a file gzipped whole)
// Offset is where the member starts and Skip how many records come before
// the record in it. ReadAt reads the record again from there.
type Record struct {
	Fields []Field
	Block  []byte
	Offset int64
	Skip   int
}

// Get returns the value of the first field named name (case-insensitive),
// or "".
func (r *Record) Get(name string) string {
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Set replaces the value of the field named name, or adds the field.
func (r *Record) Set(name, value string) {
	for i, f := range r.Fields {
		if strings.EqualFold(f.Name, name) {
			r.Fields[i].Value = value
			return
		}
	}
	r.Fields = append(r.Fields, Field{name, value})
}

// Type is the record's WARC-Type.
func (r *Record) Type() string { return r.Get("WARC-Type") }

// New returns a record of type typ with a new WARC-Record-ID, the WARC-Date
// date (UTC, to the microsecond), and block, its Content-Length and
// WARC-Block-Digest set.
func New(typ string, date time.Time, block []byte) *Record {
	r := &Record{Block: block}
	r.Fields = []Field{
		{"WARC-Type", typ},
		{"WARC-Record-ID", NewID()},
		{"WARC-Date", FormatDate(date)},
	}
	r.Set("WARC-Block-Digest", Digest(block))
	return r
}

// FormatDate is a WARC-Date: UTC, to the microsecond (WARC/1.1).
func FormatDate(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// NewID returns a new record ID, a random UUID URN in angle brackets.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Digest is the "sha1:BASE32" digest of b.
func Digest(b []byte) string {
	d := NewDigester()
	d.Write(b)
	return d.String()
}

// Digester computes a digest as Digest does, over bytes written to it.
type Digester struct{ h hash.Hash }

// NewDigester returns an empty Digester.
func NewDigester() *Digester { return &Digester{sha1.New()} }

// Write adds p to the digest; it never fails.
func (d *Digester) Write(p []byte) (int, error) { return d.h.Write(p) }

// String is the digest as "sha1:BASE32".
func (d *Digester) String() string {
	return "sha1:" + base32.StdEncoding.EncodeToString(d.h.Sum(nil))
}

// PayloadOffset returns where the payload of an HTTP message block
// (application/http) starts: after the empty line that ends its header,
// CRLF or a bare LF, as HTTP readers take it. It says false when the
// header has no end. An interim response (100 Continue) recorded before
// the final one counts as the header, as warcio reads it.
func PayloadOffset(block []byte) (int, bool) {
	for i := 0; ; {
		j := bytes.IndexByte(block[i:], '\n')
		if j < 0 {
			return 0, false
		}
		i += j + 1
		switch {
		case bytes.HasPrefix(block[i:], []byte("\n")):
			return i + 1, true
		case bytes.HasPrefix(block[i:], []byte("\r\n")):
			return i + 2, true
		}
	}
}

// marshal appends the record, as it is on disk uncompressed, to buf.
func (r *Record) marshal(buf *bytes.Buffer) {
	buf.WriteString("WARC/1.1\r\n")
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, "Content-Length") {
			continue
		}
		buf.WriteString(f.Name)
		buf.WriteString(": ")
		buf.WriteString(clean(f.Value))
		buf.WriteString("\r\n")
	}
	fmt.Fprintf(buf, "Content-Length: %d\r\n\r\n", len(r.Block))
	buf.Write(r.Block)
	buf.WriteString("\r\n\r\n")
}

// clean keeps a field value on one line.
func clean(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
