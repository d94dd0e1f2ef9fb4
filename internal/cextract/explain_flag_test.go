package cextract

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestExplainArgs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ args, want []string }{
		{[]string{"--explain", "/p/"}, []string{"--explain=/p/"}},
		{[]string{"--explain", "/p/", in}, []string{"--explain=/p/", in}},
		{[]string{"--explain=/p/", in}, []string{"--explain=/p/", in}},
		{[]string{"--explain", in}, []string{"--explain=.", in}},
		{[]string{"--explain"}, []string{"--explain=."}},
		{[]string{"--explain", "-r", "x.yml"}, []string{"--explain=.", "-r", "x.yml"}},
		{[]string{"--explain", "-"}, []string{"--explain=.", "-"}},
		{[]string{"--explain", ""}, []string{"--explain=."}},
		{[]string{"--explain="}, []string{"--explain=."}},
		{[]string{"--explain", dir}, []string{"--explain=" + dir}}, // a directory is no input
		{[]string{"--explain", "+"}, []string{"--explain=+"}},
		{[]string{"-f", "t=h1", "--", "--explain", "x"}, []string{"-f", "t=h1", "--", "--explain", "x"}},
	} {
		if got := explainArgs(tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("explainArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
