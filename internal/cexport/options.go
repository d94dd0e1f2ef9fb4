package cexport

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Export formats.
const (
	formatJSONL = "jsonl"
	formatJSON  = "json"
	formatCSV   = "csv"
	formatXML   = "xml"
	formatTSV   = "tsv"
	formatMD    = "markdown"
)

// formatNames maps every accepted --format value to its format.
var formatNames = map[string]string{
	"jsonl": formatJSONL, "jsonlines": formatJSONL, "ndjson": formatJSONL,
	"json": formatJSON, "csv": formatCSV, "xml": formatXML,
	"tsv": formatTSV, "markdown": formatMD, "md": formatMD,
}

// formatByExt maps an -o file extension to its format.
var formatByExt = map[string]string{
	".jsonl": formatJSONL, ".ndjson": formatJSONL, ".jl": formatJSONL,
	".json": formatJSON, ".csv": formatCSV, ".xml": formatXML,
	".tsv": formatTSV, ".md": formatMD,
}

const (
	validFormats = "jsonl, json, csv, tsv, xml, markdown; jsonlines and ndjson mean jsonl, md markdown"
	knownExts    = ".jsonl .ndjson .jl .json .csv .tsv .xml .md, then .gz or .zst to compress"
)

// Options is what cexport does, as set by flags, environment and config.
// Validate fills in the derived fields; call it before using them.
type Options struct {
	// Format is jsonl, json, csv or xml (aliases accepted); "" picks it from
	// the Output file's extension (an unknown one is an error), or jsonl on
	// stdout.
	Format string
	// Output is the file items are written to; "" or "-" is stdout. With a
	// file, records that are not items are passed on to stdout.
	Output string
	// Overwrite truncates Output first (-O). Otherwise the export is
	// appended to what Output holds (-o), in every format: see resume.go.
	Overwrite bool
	// Append is the deprecated --append: what -o does anyway.
	Append bool
	// Fields, when set, are the item fields to export, in this order (the
	// CSV header), each NAME or FROM:TO (export FROM under the name TO; see
	// parseFieldSpec). Otherwise CSV takes the fields the Rules declare,
	// or the first item's fields, and the other formats export every field.
	Fields []string
	// Rules, when set, is the rules file the items were extracted with:
	// the header of a table format holds every field its item rules
	// declare (declared.go).
	Rules string
	// Types, when set, keeps only the items whose "type" is one of them
	// (Scrapy's item_classes); an object without "kind" has no type. Like
	// Key, it holds the names themselves: the flag has undone its escapes
	// (listflag.go), unlike Fields, whose entries keep theirs.
	Types []string
	// Where, when set, is a jq expression run on each item's data (the whole
	// record is $record): the item is kept when a result is neither false
	// nor null (Scrapy's item_filter).
	Where string
	// StoreEmpty writes the export when there are no items (an empty file,
	// [], a header): Scrapy's store_empty. Off, the output is opened only
	// when the first item comes, so a run without items leaves it as it
	// was (not even -O truncates it).
	StoreEmpty bool
	// Flatten writes the members of nested objects as fields of their own,
	// named with dots (dims.w), in the table formats (csv, tsv, markdown).
	Flatten bool
	// CSVSafe prefixes with ' a CSV or TSV cell that is a string starting
	// with =, +, -, @, a tab or a CR, so spreadsheets do not run it as a
	// formula (OWASP's CSV injection advice).
	CSVSafe bool
	// BatchItems and BatchSeconds, when set, cut the export into batch
	// files of at most that many items or seconds, named by the Output
	// template (batch.go).
	BatchItems   int
	BatchSeconds float64
	// CSVDelimiter is one character ("\t" and "tab" mean a tab).
	CSVDelimiter string
	// delimiterDefault: CSVDelimiter came from the environment or a
	// config file, and applies to CSV exports only.
	delimiterDefault bool
	// NoHeader leaves out the CSV header line.
	NoHeader bool
	// XMLRoot and XMLItem name the XML document and item elements ("" is
	// items and item).
	XMLRoot, XMLItem string
	// Key, with a database output, makes each write an upsert on these
	// fields: a row with the same key is updated, not added (sink.go).
	Key []string
	// DBRetry, with a database output, is how long a database that went
	// away mid-run is waited for before the run fails (sink_retry.go).
	DBRetry time.Duration
	// Alter, with a database output, adds a column for a field the table
	// does not have; without it such an item is rejected.
	Alter bool
	// ChangedOnly writes an item only when it is new or differs from the
	// item last exported with the same Key (changes.go).
	ChangedOnly bool
	// ChangeFields adds first_seen, last_seen and changed_at to each item.
	ChangeFields bool
	// History, with a database output, adds each new or changed item as a
	// row of the table TABLE_history.
	History bool
	// ChangesDB is the SQLite file of the change state; "" is
	// OUT.changes.db, or the SQLite output's own file.
	ChangesDB string
	// Gone, once round Gone of a crawl is complete, reports the items
	// last seen in an earlier round as gone (changes_gone.go); 0: never.
	Gone int

	// Derived by Validate.
	format    string // one of the format constants
	delimiter rune
	// db is the database Output names (sqlite:…, postgres://…), or nil.
	db *dbTarget
	// compress is how the Output file is compressed, from its suffix
	// (compressGzip, compressZstd), or "".
	compress string
	// fields is Fields parsed; header their exported names.
	fields []fieldSpec
	header []string
	// declared is what the Rules file declares, or nil.
	declared *declared
	where    *predicate
	// batch is the parsed Output template with batches, or nil.
	batch *batchTemplate
}

// toFile reports whether items go to a file or a database (and other
// records to stdout).
func (o *Options) toFile() bool { return o.Output != "" && o.Output != "-" }

// outputFlag is the flag that named Output, for messages.
func (o *Options) outputFlag() string {
	if o.Overwrite {
		return "-O"
	}
	return "-o"
}

// isDocument reports whether the format is one document (a JSON array, an
// XML element) that needs a closing after the last item.
func (o *Options) isDocument() bool { return o.format == formatJSON || o.format == formatXML }

// isTable reports whether the format is a table with a header (csv, tsv,
// markdown), which --flatten and the header rules apply to.
func (o *Options) isTable() bool {
	return o.format == formatCSV || o.format == formatTSV || o.format == formatMD
}

// Validate checks the options and derives the format and delimiter. Its
// errors name the flag and the valid values.
func (o *Options) Validate() error {
	db, err := parseDBTarget(o.Output)
	if err != nil {
		return fmt.Errorf("%s %s: %v", o.outputFlag(), redactURI(o.Output), err)
	}
	o.db = db
	if err := o.validateDB(); err != nil {
		return err
	}
	if db != nil {
		o.format = ""
	} else if err := o.validateFormat(); err != nil {
		return err
	}
	if o.Append {
		switch {
		case o.Overwrite:
			return errors.New("--append and -O: -O overwrites the file, -o appends to it (--append is no longer needed)")
		case !o.toFile():
			return errors.New("--append needs -o FILE")
		}
	}
	if o.fields, err = parseFieldSpecs(o.Fields); err != nil {
		return err
	}
	if len(o.fields) > 0 {
		o.header = outNames(o.fields)
	}
	if err := checkNames("--type", o.Types); err != nil {
		return err
	}
	if o.Rules != "" {
		if o.declared, err = readDeclared(o.Rules, o.Types, o.Flatten); err != nil {
			return err
		}
	}
	if o.Where != "" {
		if o.where, err = compilePredicate(o.Where); err != nil {
			return err
		}
	}
	if o.Flatten && !o.isTable() {
		return fmt.Errorf("--flatten is for the table formats (csv, tsv, markdown), not %s", o.formatName())
	}
	if o.CSVSafe && o.format != formatCSV && o.format != formatTSV {
		return fmt.Errorf("--csv-safe is for csv and tsv, not %s", o.formatName())
	}
	if err := o.validateBatch(); err != nil {
		return err
	}
	if o.XMLRoot == "" {
		o.XMLRoot = "items"
	}
	if o.XMLItem == "" {
		o.XMLItem = "item"
	}
	d, err := parseDelimiter(o.CSVDelimiter)
	if err != nil {
		return err
	}
	o.delimiter = d
	if d != ',' && o.format != formatCSV {
		// TSV's separator is a tab; the other formats have none. One from
		// the environment or the config file is for CSV exports only.
		if !o.delimiterDefault {
			return fmt.Errorf("--csv-delimiter is for csv, not %s", o.formatName())
		}
		o.delimiter = ','
	}
	for _, e := range []struct{ flag, name string }{{"--xml-root", o.XMLRoot}, {"--xml-item", o.XMLItem}} {
		if !isXMLName(e.name) {
			return fmt.Errorf("%s %q: not a valid XML element name (letters, digits, _, - and ., not starting with a digit, - or .)", e.flag, e.name)
		}
	}
	return nil
}

// formatName names the output's format in messages.
func (o *Options) formatName() string {
	if o.db != nil {
		return "a database table"
	}
	return o.format
}

// validateDB checks the flags that concern a database output.
func (o *Options) validateDB() error {
	if err := o.validateChanges(); err != nil {
		return err
	}
	if o.DBRetry < 0 {
		return fmt.Errorf("--db-retry %v: must not be negative", o.DBRetry)
	}
	if o.db == nil {
		switch {
		case len(o.Key) > 0 && !o.tracksChanges():
			return fmt.Errorf("--key needs a database output (-o 'sqlite:items.db?table=items', -o 'postgres://…?table=items')")
		case o.Alter:
			return fmt.Errorf("--alter needs a database output (-o 'sqlite:items.db?table=items', -o 'postgres://…?table=items')")
		}
		return nil
	}
	if o.Format != "" {
		return fmt.Errorf("--format %s: %s %s is a database table, which has no format (leave out -f)", o.Format, o.outputFlag(), o.db.display)
	}
	return checkNames("--key", o.Key)
}

// checkNames checks a list of field names given to flag.
func checkNames(flag string, names []string) error {
	seen := map[string]bool{}
	for _, f := range names {
		if f == "" {
			return fmt.Errorf("%s %q: empty field name", flag, joinNames(names))
		}
		if seen[f] {
			return fmt.Errorf("%s: field %q is named twice", flag, f)
		}
		seen[f] = true
	}
	return nil
}

// validateFormat derives the format of a file or stdout output: --format,
// else the -o file's extension (after a compression suffix), else jsonl.
func (o *Options) validateFormat() error {
	name := o.Output
	if o.toFile() {
		name, o.compress = compressionOf(o.Output)
	}
	if o.Format != "" {
		f, ok := formatNames[strings.ToLower(o.Format)]
		if !ok {
			return fmt.Errorf("--format %q: unknown format (valid: %s)", o.Format, validFormats)
		}
		o.format = f
	} else {
		o.format = formatJSONL
		if o.toFile() {
			ext := filepath.Ext(name)
			f, ok := formatByExt[strings.ToLower(ext)]
			if !ok {
				what := fmt.Sprintf("unknown extension %q", ext)
				if ext == "" {
					what = "no extension"
				}
				if o.compress != "" {
					what += " before " + o.Output[len(name):]
				}
				return fmt.Errorf("%s %s: %s to tell the format by (known: %s); give the format with -f FORMAT", o.outputFlag(), o.Output, what, knownExts)
			}
			o.format = f
		}
	}
	return nil
}

// parseDelimiter accepts one character other than a quote or a line break.
func parseDelimiter(s string) (rune, error) {
	switch s {
	case "":
		return ',', nil
	case `\t`, "tab", "TAB":
		return '\t', nil
	}
	r, n := utf8.DecodeRuneInString(s)
	if n != len(s) || r == utf8.RuneError {
		return 0, fmt.Errorf("--csv-delimiter %q: must be one character (e.g. , ; | or \\t for a tab)", s)
	}
	if r == 0 || r == '"' || r == '\r' || r == '\n' {
		return 0, fmt.Errorf("--csv-delimiter %q: cannot be a quote or a line break (e.g. , ; | or \\t for a tab)", s)
	}
	return r, nil
}

// tracksChanges reports whether items are checked against the change
// state (changes.go).
func (o *Options) tracksChanges() bool { return o.ChangedOnly || o.ChangeFields || o.History }

// validateChanges checks --changed-only, --change-fields, --history and
// --changes-db.
func (o *Options) validateChanges() error {
	if o.Gone < 0 {
		return fmt.Errorf("--gone must be the round just completed, 1 or more (got %d)", o.Gone)
	}
	if !o.tracksChanges() {
		if o.ChangesDB != "" {
			return errors.New("--changes-db needs --changed-only, --change-fields or --history")
		}
		return nil
	}
	flag := "--changed-only"
	switch {
	case o.ChangeFields && !o.ChangedOnly:
		flag = "--change-fields"
	case o.History && !o.ChangedOnly:
		flag = "--history"
	}
	switch {
	case len(o.Key) == 0:
		return fmt.Errorf("%s needs --key FIELDS: the fields that name an item from one crawl to the next (e.g. --key url)", flag)
	case o.History && o.db == nil:
		return errors.New("--history needs a database output (-o 'sqlite:items.db?table=items', -o 'postgres://…?table=items'): the history is the table TABLE_history")
	case o.ChangesDB == "" && o.db == nil && !o.toFile():
		return fmt.Errorf("%s on stdout needs --changes-db FILE: where the items of the last run are remembered", flag)
	case o.ChangesDB == "" && o.db != nil && o.db.driver != driverSQLite:
		return fmt.Errorf("%s into PostgreSQL needs --changes-db FILE (an SQLite file): where the items of the last run are remembered", flag)
	case o.History && checkIdent("table", o.db.historyTable()) != nil:
		return fmt.Errorf("--history: the history table %s would have a name longer than %d bytes; give -o a table name of at most %d bytes", o.db.historyTable(), maxIdent, maxIdent-len(historySuffix))
	}
	return checkNames("--key", o.Key)
}
