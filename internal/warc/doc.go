// Package warc writes and reads WARC files (ISO 28500, WARC/1.1): the
// archive format of web crawls.
//
// A Writer appends records to a .warc.gz file, each record its own gzip
// member, as Heritrix and wget write them, so that any record can be read
// from its offset alone. Each call to Writer.Write puts its records on the
// file in one write after they are serialized whole, so a process killed at
// any moment leaves a file that readers open up to its last whole record.
// A Writer never appends to an existing file: it creates the first free
// name of its series (crawl.warc.gz, crawl-00001.warc.gz, ...) and rotates
// to the next one past a maximum size.
//
// A Reader reads the records of a file, compressed per record, compressed
// whole, or plain, and reports a truncated or corrupt record as an *Error
// naming the file and the offset; it then looks for the next gzip member,
// so the records after a damaged one are kept.
//
// Digests are SHA-1 in base32, as "sha1:..." (Digest).
package warc
