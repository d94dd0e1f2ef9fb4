// Package ndjson reads and writes newline-delimited JSON the way every
// crawlutils command does.
//
// Reader yields lines with their source name and line number, accepts lines
// up to MaxLine bytes (64 MiB by default) and reports a longer line as a
// *LineError without losing the lines after it. A UTF-8 byte order mark at
// the very start of an input (each file, and stdin) is skipped; one
// anywhere else is part of its line. Writer appends each record
// whole to a buffer, writes with one Write per record or batch, never splits a
// record across two writes unless it is larger than the buffer, and keeps the
// first write error. Neither is safe for concurrent use except where noted.
package ndjson
