// Package cexport is the cexport command: it writes item records as JSON
// lines, a JSON array, CSV or XML, like Scrapy's feed exports and item
// exporters, to a file (compressed with gzip or zstd by its suffix:
// compress.go, resume_compress.go) or into an SQLite or PostgreSQL table
// (dburi.go, sink.go, schema.go, sink_sqlite.go, sink_postgres.go).
// docs/cexport.md is the user's guide.
//
// It reads records with cli.Tool.Records. An item record contributes its
// "data" object, a JSON object without "kind" is item data as it is (jq
// output), and everything else is passed on to stdout when the items go to a
// file (-o), so cexport can sit in the middle of the crawl loop. Acks are held
// back until every item read before them is flushed and fsynced to the file.
//
// -o appends to the file in every format, as Scrapy's -o does, and -O
// truncates it. Appending goes on after the file's last complete item and
// cuts off one a killed run left unfinished (resume.go); a JSON array or XML
// document in a file is closed again after every flush (seal.go), so it is
// one valid document whenever cexport has flushed.
//
// Each format is an exporter (exporter.go) that receives an item's members
// in document order as record.Fields, so columns and element order follow
// the input and numbers stay exactly as written. A table is an exporter
// too (tableSink), whose items are durable once its transaction commits:
// the passer's commit is that commit, not a flush and fsync.
package cexport
