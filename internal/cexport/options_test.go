package cexport

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		format  string
		delim   rune
		wantErr string
	}{
		{name: "defaults", format: "jsonl", delim: ','},
		{name: "alias jsonlines", opts: Options{Format: "jsonlines"}, format: "jsonl", delim: ','},
		{name: "alias ndjson, any case", opts: Options{Format: "NDJSON"}, format: "jsonl", delim: ','},
		{name: "format from .csv", opts: Options{Output: "out/items.CSV"}, format: "csv", delim: ','},
		{name: "format from .jl", opts: Options{Output: "items.jl"}, format: "jsonl", delim: ','},
		{name: "format from .json", opts: Options{Output: "items.json"}, format: "json", delim: ','},
		{name: "format from .xml", opts: Options{Output: "items.xml"}, format: "xml", delim: ','},
		{name: "unknown extension", opts: Options{Output: "items.txt"}, wantErr: `-o items.txt: unknown extension ".txt" to tell the format by (known: .jsonl .ndjson .jl .json .csv .tsv .xml .md, then .gz or .zst to compress); give the format with -f FORMAT`},
		{name: "no extension", opts: Options{Output: "out/items", Overwrite: true}, wantErr: `-O out/items: no extension to tell the format by`},
		{name: "unknown extension with a format", opts: Options{Output: "items.txt", Format: "csv"}, format: "csv", delim: ','},
		{name: "stdout is jsonl", opts: Options{Output: "-"}, format: "jsonl", delim: ','},
		{name: "flag beats extension", opts: Options{Output: "items.csv", Format: "json"}, format: "json", delim: ','},
		{name: "tab", opts: Options{CSVDelimiter: `\t`, Format: "csv"}, format: "csv", delim: '\t'},
		{name: "tab by name", opts: Options{CSVDelimiter: "tab", Format: "csv"}, format: "csv", delim: '\t'},
		{name: "semicolon", opts: Options{CSVDelimiter: ";", Output: "a.csv"}, format: "csv", delim: ';'},
		{name: "delimiter of another format", opts: Options{CSVDelimiter: ";", Format: "tsv"}, wantErr: `--csv-delimiter is for csv, not tsv`},
		{name: "the default delimiter, named", opts: Options{CSVDelimiter: ",", Format: "json"}, format: "json", delim: ','},
		{name: "unknown format", opts: Options{Format: "yaml"}, wantErr: `--format "yaml": unknown format (valid: jsonl, json, csv, tsv, xml, markdown`},
		{name: "long delimiter", opts: Options{CSVDelimiter: ";;"}, wantErr: `--csv-delimiter ";;": must be one character`},
		{name: "quote delimiter", opts: Options{CSVDelimiter: `"`}, wantErr: `--csv-delimiter "\"": cannot be a quote`},
		{name: "newline delimiter", opts: Options{CSVDelimiter: "\n"}, wantErr: `cannot be a quote or a line break`},
		{name: "append to stdout", opts: Options{Append: true}, wantErr: "--append needs -o FILE"},
		{name: "append json", opts: Options{Append: true, Output: "a.json"}, format: "json", delim: ','},
		{name: "append xml", opts: Options{Append: true, Output: "a", Format: "xml"}, format: "xml", delim: ','},
		{name: "append csv", opts: Options{Append: true, Output: "a.csv"}, format: "csv", delim: ','},
		{name: "append and overwrite", opts: Options{Append: true, Output: "a.csv", Overwrite: true}, wantErr: "--append and -O"},
		{name: "empty field", opts: Options{Fields: []string{"a", ""}}, wantErr: `--fields "a,": empty field name`},
		{name: "duplicate field", opts: Options{Fields: []string{"a", "b", "a"}}, wantErr: `--fields: field "a" is named twice`},
		{name: "bad xml root", opts: Options{XMLRoot: "my items"}, wantErr: `--xml-root "my items": not a valid XML element name`},
		{name: "bad xml item", opts: Options{XMLItem: "1item"}, wantErr: `--xml-item "1item": not a valid XML element name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate() = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.opts.format != tt.format || tt.opts.delimiter != tt.delim {
				t.Fatalf("format %q delimiter %q, want %q %q", tt.opts.format, tt.opts.delimiter, tt.format, tt.delim)
			}
		})
	}
}
