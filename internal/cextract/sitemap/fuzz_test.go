package sitemap

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
)

// FuzzDeclaredUTF8: any document is read to its end without a panic or an
// error, and is either passed on unchanged or converted to valid UTF-8;
// one without an XML declaration in the head DeclaredUTF8 reads, or one
// that declares UTF-8, passes unchanged; one that declares a legacy
// encoding comes out valid UTF-8, however its bytes are cut into reads.
func FuzzDeclaredUTF8(f *testing.F) {
	for _, s := range []string{
		"<?xml version='1.0' encoding='ISO-8859-1'?>\n<urlset><url><loc>http://a.test/caf\xe9</loc></url></urlset>",
		`<?xml version="1.0" encoding="latin1"?><urlset><url><loc>&eacute;</loc></url></urlset>`,
		`<?xml version="1.0" encoding="UTF-8"?><urlset/>` + "\xff",
		`<?xml version="1.0" encoding="utf-16"?>` + "\x00<\x00u\x00",
		`<?xml version="1.0" encoding="shift_jis"?><loc>` + "\x82\xa0\x82",
		`<?xml version="1.0" encoding="windows-1251"?><loc>` + "\xcf\xf0\xe8",
		`<?xml version="1.0" encoding="replacement"?><loc>x</loc>`,
		`<?xml version="1.0" encoding="no-such"?><loc>` + "\xe9",
		`<!-- c --><?xml version="1.0" encoding="koi8-r"?><loc>` + "\xc1",
		"\ufeff<?xml version='1.0' encoding='iso-2022-jp'?><loc>\x1b$B",
		`<urlset><?xml encoding="latin1"?>` + "\xe9",
		"<urlset><url><loc>caf\xe9</loc></url></urlset>",
		"",
		"<?xml",
		`<?xml version="1.0" encoding="utf8"?><loc>` + "\xe9",
		`<?xml version="1.0" encoding="unicode-1-1-utf-8"?><loc>` + "\xe9",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, doc []byte, chunk uint8) {
		var src io.Reader = bytes.NewReader(doc)
		if chunk%2 == 1 {
			src = iotest.HalfReader(src)
		}
		got, err := io.ReadAll(DeclaredUTF8(src))
		if err != nil {
			t.Fatalf("DeclaredUTF8(%q): %v", doc, err)
		}
		if bytes.Equal(got, doc) {
			return
		}
		if !bytes.Contains(doc[:min(len(doc), declaredHead)], []byte("<?xml")) {
			t.Fatalf("DeclaredUTF8(%q) = %q: changed without a declaration", doc, got)
		}
		if !utf8.Valid(got) {
			t.Fatalf("DeclaredUTF8(%q) = %q: converted, not valid UTF-8", doc, got)
		}
		label := declaredEncoding(doc[:min(len(doc), declaredHead)])
		if label == "" {
			t.Fatalf("DeclaredUTF8(%q) = %q: changed, with no encoding declared", doc, got)
		}
		if enc, err := htmlindex.Get(label); err != nil || enc == encoding.Replacement {
			t.Fatalf("DeclaredUTF8(%q) = %q: changed, declared %q, no encoding to read", doc, got, label)
		} else if name, _ := htmlindex.Name(enc); name == "utf-8" {
			t.Fatalf("DeclaredUTF8(%q) = %q: changed, declared %q (UTF-8)", doc, got, label)
		}
	})
}
