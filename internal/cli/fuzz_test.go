package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzConfig: any config file gives either settings or a usage error that
// names the file — never a panic.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"ctest:\n  concurrency: 7\n  tag: [a, b]\n",
		"ctest: 3\n",
		"ctest:\n  concurrency: {a: 1}\n",
		"other:\n  x: 1\nctest:\n  name: \"quoted: value\"\n",
		"\t- not yaml",
		"ctest:\n  help: true\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, cfg []byte) {
		path := filepath.Join(t.TempDir(), "config.yml")
		if err := os.WriteFile(path, cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		tool := NewTool("ctest", &stderr)
		fl := tool.NewFlags(Help{})
		fl.Int("concurrency", 16, "")
		fl.String("name", "", "")
		fl.StringSlice("tag", nil, "")
		_, code, done := fl.Parse([]string{"--config", path}, new(bytes.Buffer))
		if done && (code != ExitUsage || !bytes.Contains(stderr.Bytes(), []byte("config "))) {
			t.Fatalf("code %d, stderr %q", code, stderr.String())
		}
	})
}
