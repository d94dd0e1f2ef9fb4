package dedupe

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
)

// TestScrapyJobdirRoundTrip: the requests.seen files Scrapy 2.8 wrote for
// testdata/seen_urls.txt (testdata/gen_seen.py) are exactly what
// fingerprint computes, deduplicated through a Store, and written back by
// WriteSeenFile.
func TestScrapyJobdirRoundTrip(t *testing.T) {
	for file, fpFunc := range map[string]func(m, u, b string) ([20]byte, error){
		"requests.seen":     fingerprint.Scrapy,
		"requests-2.6.seen": fingerprint.ScrapyLegacy,
	} {
		t.Run(file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "seen.db"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			f, err := os.Open("testdata/seen_urls.txt")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// Like RFPDupeFilter: append a request's fingerprint the first
			// time it is seen.
			var got []byte
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				method, u, _ := strings.Cut(sc.Text(), " ")
				fp, err := fpFunc(method, u, "")
				if err != nil {
					t.Fatalf("%s: %v", u, err)
				}
				isNew, err := s.SeenBatch(ctx, "job", []Key{ScrapyKey(fp)}, t0)
				if err != nil {
					t.Fatal(err)
				}
				if isNew[0] {
					var buf bytes.Buffer
					WriteSeenFile(&buf, slices.Values([][20]byte{fp}))
					got = append(got, buf.Bytes()...)
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got\n%s\nScrapy wrote\n%s", got, want)
			}
			// Import Scrapy's file into a fresh namespace; export it back.
			var n int
			err = ReadSeenFile(bytes.NewReader(want), func(fp [20]byte) error {
				n++
				_, err := s.SeenBatch(ctx, "imported", []Key{ScrapyKey(fp)}, t0)
				return err
			})
			if err != nil || n != 7 {
				t.Fatalf("ReadSeenFile: %d fingerprints, %v", n, err)
			}
			var fps [][20]byte
			s.Export(ctx, "imported", t0, func(k Key) error { fps = append(fps, k.SHA1); return nil })
			var out bytes.Buffer
			WriteSeenFile(&out, slices.Values(fps))
			if sortLines(out.String()) != sortLines(string(want)) {
				t.Errorf("export differs from import:\n%s", out.String())
			}
		})
	}
}

func sortLines(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(l)
	return strings.Join(l, "\n")
}

func TestReadSeenFileErrors(t *testing.T) {
	ok := strings.Repeat("ab", 20)
	for in, want := range map[string]string{
		ok + "\n\n  " + strings.ToUpper(ok) + "  \r\n": "",
		ok + "\nxyz\n": "requests.seen:2: not a fingerprint",
		ok + "\n" + strings.Repeat("zz", 20) + "\n": "requests.seen:2: not a fingerprint",
		ok: "",
	} {
		n := 0
		err := ReadSeenFile(strings.NewReader(in), func([20]byte) error { n++; return nil })
		if want == "" && (err != nil || n == 0) {
			t.Errorf("ReadSeenFile(%q) = %v after %d", in, err, n)
		}
		if want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("ReadSeenFile(%q) = %v, want %q…", in, err, want)
		}
	}
}
