package cexport

import (
	"github.com/crawlutils/crawlutils/internal/cli"
)

var help = cli.Help{
	Usage:   "cexport [flags] [FILE...]",
	Summary: "write items as JSON lines, JSON, CSV, TSV, XML or Markdown files, or into SQLite or PostgreSQL (Scrapy's feed exports)",
	Description: `Reads records (stdin, or the FILEs; - is stdin) and exports the items: the "data" object of
each item record, and every JSON object without a "kind" as it is (so jq output can be exported).
Key order and numbers are kept exactly as they came.

With -o FILE the items go to the file and every other record (requests, acks, responses) is
passed on to stdout unchanged, so cexport can sit in the crawl loop; an ack is passed on only
after every item read before it is flushed and fsynced to FILE. Without -o the items go to
stdout and other records are ignored (counted as "ignored"): -o is needed to pass requests and
acks on.

As in Scrapy, -o FILE appends and -O FILE overwrites, in every format. Appending to a JSON array
or an XML document keeps it one valid document: its closing ] or </items> is rewritten after the
new items. A CSV file that has a header keeps it, and its columns. An item left unfinished in
FILE by a run that was killed mid-write (never acknowledged, so its page is fetched again) is
cut off first. So rerunning an interrupted crawl loop, unchanged, completes the export. A
missing or empty FILE is a new export.

The format is --format, else the -o FILE extension (.jsonl .ndjson .jl .json .csv .tsv .xml
.md; another extension is an error), else jsonl. A further .gz or .zst compresses the file (items.csv.gz):
an ack passes on once the compressed data before it is in a complete gzip member (zstd frame),
fsynced; -o appends a new member, which zcat and zstdcat read as one stream (a compressed
JSON array or XML document cannot be appended to: -O, or a new file).

-o also takes a database table, 'sqlite:FILE?table=NAME' or
'postgres://USER@HOST:PORT/DB?table=NAME' (table default: items). The table is created from the
first item's fields (INTEGER, REAL, TEXT, JSON for objects and arrays), or an existing one is
used; --key makes writes upserts, --alter adds columns for new fields. Rows are written in
transactions, and an ack passes on once the transaction holding the items before it has
committed. A row the database rejects is reported with its line, and the rest goes on (exit
status 3). -O empties the table first. A JSON array or XML document is always closed properly, even
when the input ends early or cexport is interrupted; in a file it is closed after every flush,
so readers see a valid document while cexport runs. CSV uses LF line endings; its header (and
TSV's, Markdown's) is --fields, else the header of the file appended to, else every field the
--rules file declares, else the first item's fields. An item with a field the header lacks is
written without it, reported with its line and URL, and counted (errors: not_in_header, exit
status 3).
A database that goes away mid-run is waited for (--db-retry, 1m); then cexport fails with the
acks of the unwritten items held back.

--type and --where choose the items (a filtered item is counted, not an error; the acks after
it pass on); --fields chooses, orders and renames fields (price:cost). With --batch-items N or
--batch-seconds S, -o is a template (items-%(batch_id)05d.csv, %(batch_time)s): each batch is
written as .NAME.part and gets its name only when complete; a rerun numbers after the last.

When the reader of stdout goes away (cexport -o FILE | head, or the next command of the loop
exited), cexport stops reading, completes FILE with the items it has read (the JSON array or
XML document closed, the gzip or zstd stream ended, the last batch committed) and exits 141,
the status SIGPIPE would have given; after SIGINT/SIGTERM it reads on and exits 130.`,
	Output: "export the items to `FILE`, appending to what it holds (created if missing), or into a database table (sqlite:FILE?table=NAME, postgres://…?table=NAME); pass other records on to stdout (Scrapy's -o)",
	Examples: `  # items to CSV, requests and acks flow on to the frontier
  cqueue pop --follow | cfetch | cextract -r rules.yml | cexport -r rules.yml -o items.csv | cqueue push

  # a CSV column for every field the rules declare, though the first item lacks some
  cextract -r shop.yml responses.jsonl | cexport -r shop.yml -o items.csv

  # reshape items with jq, then export a JSON array
  jq -c --unbuffered '.data | {title, price}' items.jsonl | cexport -f json > items.json

  # a new JSON export each time, replacing the last one
  cexport -O items.json < items.jsonl

  # a tab-separated file with chosen columns, appended to across runs
  cexport --fields title,price,url -o items.tsv < items.jsonl

  # XML with Scrapy's element names changed
  cexport -o products.xml --xml-root products --xml-item product < items.jsonl

  # gzip-compressed CSV, appended to across runs
  cexport -o items.csv.gz < items.jsonl

  # into an SQLite table, re-crawled pages updating their rows
  cexport -o 'sqlite:items.db?table=books' --key url < items.jsonl

  # each night's recrawl: only new or changed items, their history in books_history
  cexport -o 'sqlite:items.db?table=books' --key url --changed-only --history < items.jsonl

  # into PostgreSQL, adding columns for new fields
  cexport -o 'postgres://crawler@127.0.0.1:5432/shop?table=books' --key url --alter < items.jsonl

  # products over 10 only, columns chosen and renamed, safe to open in a spreadsheet
  cexport --type product --where '.price > 10' --fields title:Title,price:Price --csv-safe -o products.csv < items.jsonl

  # a new batch file every 1000 items, each complete before it has its name
  cexport -o 'items-%(batch_id)05d.csv' --batch-items 1000 < items.jsonl

  # a quick look: a Markdown table of two fields
  cexport -f markdown --fields title,price < items.jsonl`,
	ExitCodes: `  141  with -o, the reader of stdout went away (| head, the next command exited): FILE was
       completed with the items read, and cexport stopped reading (as SIGPIPE would have)`,
}

// command is a run of cexport: its options, and -O, which sets them only
// once parsed.
type command struct {
	o         *Options
	overwrite string
}

func (c *command) define(f *cli.Flags) {
	o := c.o
	f.StringVarP(&o.Format, "format", "f", "", "export `FORMAT`: jsonl (jsonlines, ndjson), json, csv, tsv, xml or markdown (md); default from the -o FILE extension, else jsonl (Scrapy FEED_FORMAT)")
	f.Var(newFieldList(&o.Fields), "fields", "export these `FIELDS` in this order, comma-separated, each NAME or NAME:NEWNAME (price:cost); in a name, \\, is a comma, \\: a colon, \\\\ a backslash; any other character, \" included, is itself; for CSV the header (Scrapy FEED_EXPORT_FIELDS)")
	f.StringVarP(&o.Rules, "rules", "r", "", "the rules `FILE` the items were extracted with (cextract -r FILE): the csv, tsv or markdown header holds every field its item rules declare, in its order (Scrapy FEED_EXPORT_FIELDS); cqueue crawl gives it")
	f.BoolVar(&o.Append, "append", false, "deprecated: -o FILE appends anyway (Scrapy FEEDS overwrite: false); -O FILE overwrites")
	f.StringVar(&o.CSVDelimiter, "csv-delimiter", ",", "CSV field separator, one `CHAR` (\\t or tab: a tab)")
	f.BoolVar(&o.NoHeader, "no-header", false, "write no CSV header line (Scrapy include_headers_line: false)")
	f.StringVar(&o.XMLRoot, "xml-root", "items", "XML document element `NAME` (Scrapy root_element)")
	f.StringVar(&o.XMLItem, "xml-item", "item", "XML element `NAME` of each item (Scrapy item_element)")
	f.StringVarP(&c.overwrite, "overwrite-output", "O", "", "like -o, but truncate `FILE` first: a new export (Scrapy's -O); a database table is emptied first")
	f.Var(newNameList(&o.Key), "key", "with a database output: upsert on these `FIELDS` (comma-separated; in a name, \\, is a comma, \\\\ a backslash; any other character, \" included, is itself): an item whose key is in the table updates its row (a unique index on them is created if missing); with --changed-only, --change-fields or --history (any output): the fields that name an item from one run to the next")
	f.BoolVar(&o.Alter, "alter", false, "with a database output: add a column for a field the table does not have (else such an item is rejected)")
	addChangeFlags(f, o)
	f.Var(newNameList(&o.Types), "type", "export only items of this `TYPE` (the item record's \"type\", the rule that made it); repeat it or separate with commas for several; in a name, \\, is a comma, \\\\ a backslash; any other character, \" included, is itself (Scrapy item_classes)")
	f.StringVar(&o.Where, "where", "", "export only items for which the jq `EXPR` on the item's data is neither false nor null (.price > 10); the whole record is $record (Scrapy item_filter)")
	f.BoolVar(&o.StoreEmpty, "store-empty", true, "write the export even with no items (an empty file, [], the header); --store-empty=false leaves the output untouched then (Scrapy store_empty; off by default with batches)")
	f.BoolVar(&o.Flatten, "flatten", false, "csv, tsv, markdown: a nested object's members become columns of their own, named with dots (dims.w); lists stay JSON cells")
	f.BoolVar(&o.CSVSafe, "csv-safe", false, "csv, tsv: prefix with ' the cells that start with = + - @, a tab or a CR, so spreadsheets do not run them as formulas")
	f.IntVar(&o.BatchItems, "batch-items", 0, "start a new batch file every `N` items; -o names them with %(batch_id)05d and %(batch_time)s (Scrapy FEED_EXPORT_BATCH_ITEM_COUNT)")
	f.Float64Var(&o.BatchSeconds, "batch-seconds", 0, "start a new batch file every `S` seconds (counted from its first item; a batch is finished on time even while no input comes)")
	f.DurationVar(&o.DBRetry, "db-retry", DefaultDBRetry, "with a database output: wait this `DURATION` for a database that went away mid-run (retrying with backoff) before failing with the acks of the unwritten items held back; 0: fail at once")
}

// options completes and checks the options once f is parsed; its errors
// are usage errors.
func (c *command) options(f *cli.Flags) (*Options, error) {
	o, overwrite := c.o, c.overwrite
	batching := o.BatchItems > 0 || o.BatchSeconds > 0
	if batching && !f.Changed("store-empty") {
		o.StoreEmpty = false
	}
	switch {
	case f.Output != "" && overwrite != "":
		return nil, cli.Usagef("-o %s and -O %s: give one (-o FILE appends to FILE, -O FILE overwrites it)", f.Output, overwrite)
	case overwrite != "":
		o.Output, o.Overwrite = overwrite, true
	default:
		o.Output = f.Output
	}
	// CEXPORT_CSV_DELIMITER's or the config file's is for CSV exports.
	o.delimiterDefault = !f.OnCommandLine("csv-delimiter")
	if err := o.Validate(); err != nil {
		return nil, cli.Usagef("%v", err)
	}
	return o, nil
}
