// Package csvfeed splits a CSV feed into rows, with any one-byte delimiter
// and quote character, as Python's csv module reads them for Scrapy's
// CSVFeedSpider: a quoted field may hold delimiters, line breaks and
// doubled quotes; a quote inside an unquoted field is kept as it is; CRLF
// and LF both end a row; blank lines are skipped. encoding/csv cannot be
// told another quote character, hence this package.
//
// Names turns a header row into column names fit for JSON object keys:
// each once, none blank.
package csvfeed

import "strings"

// Parse returns the rows of data. It never fails: malformed quoting is read
// the lenient way Python's csv module reads it (an unterminated quoted
// field runs to the end of the data).
func Parse(data string, delim, quote byte) [][]string {
	var rows [][]string
	var row []string
	var field strings.Builder
	i := 0
	n := len(data)
	lineEmpty := true
	endField := func() {
		row = append(row, field.String())
		field.Reset()
	}
	endRow := func() {
		endField()
		if !(lineEmpty && len(row) == 1 && row[0] == "") {
			rows = append(rows, row)
		}
		row = nil
		lineEmpty = true
	}
	for i < n {
		c := data[i]
		switch {
		case c == quote && field.Len() == 0:
			// A quoted field: up to the closing quote, "" is a quote.
			lineEmpty = false
			i++
			for i < n {
				if data[i] == quote {
					if i+1 < n && data[i+1] == quote {
						field.WriteByte(quote)
						i += 2
						continue
					}
					i++
					break
				}
				field.WriteByte(data[i])
				i++
			}
			// Anything after the closing quote up to the delimiter is kept.
			for i < n && data[i] != delim && data[i] != '\n' && data[i] != '\r' {
				field.WriteByte(data[i])
				i++
			}
		case c == delim:
			lineEmpty = false
			endField()
			i++
		case c == '\r' || c == '\n':
			endRow()
			i++
			if c == '\r' && i < n && data[i] == '\n' {
				i++
			}
		default:
			lineEmpty = false
			field.WriteByte(c)
			i++
		}
	}
	if !lineEmpty || field.Len() > 0 || len(row) > 0 {
		endRow()
	}
	return rows
}
