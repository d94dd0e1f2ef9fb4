package cexport

import (
	"bufio"
	"strings"
)

// rowFormat is how the table exporter (csvExporter) writes a row.
type rowFormat int

const (
	rowsCSV rowFormat = iota
	// rowsTSV is PostgreSQL's text format (COPY … FROM with its defaults
	// but NULL ''): cells separated by tabs, a backslash, tab, line feed
	// and carriage return in a cell written \\, \t, \n and \r. Every value
	// can be read back exactly, which IANA's TSV (no tabs or line breaks
	// in a cell, no escapes) cannot promise.
	rowsTSV
	// rowsMarkdown is a GitHub-flavoured Markdown table: | a | b |, a rule
	// after the header, | and \ escaped with a backslash, line breaks as
	// <br>.
	rowsMarkdown
)

var tsvEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// writeTSVRow writes row as one TSV line.
func writeTSVRow(w *bufio.Writer, row []string) error {
	for i, c := range row {
		if i > 0 {
			w.WriteByte('\t')
		}
		if strings.ContainsAny(c, "\\\t\n\r") {
			tsvEscaper.WriteString(w, c)
		} else {
			w.WriteString(c)
		}
	}
	return w.WriteByte('\n')
}

// unescapeTSV reads a TSV cell back.
func unescapeTSV(c string) string {
	if !strings.Contains(c, `\`) {
		return c
	}
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		if c[i] != '\\' || i+1 == len(c) {
			b.WriteByte(c[i])
			continue
		}
		i++
		switch c[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(c[i])
		}
	}
	return b.String()
}

var markdownEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

// writeMarkdownRow writes row as one Markdown table row.
func writeMarkdownRow(w *bufio.Writer, row []string) error {
	w.WriteByte('|')
	for _, c := range row {
		w.WriteByte(' ')
		markdownEscaper.WriteString(w, c)
		w.WriteString(" |")
	}
	return w.WriteByte('\n')
}

// writeMarkdownRule writes the line under a Markdown table's header.
func (e *csvExporter) writeMarkdownRule() error {
	e.w.WriteByte('|')
	for range e.header {
		e.w.WriteString("---|")
	}
	return e.w.WriteByte('\n')
}

// markdownCells splits a Markdown table row back into its cells.
func markdownCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			i++
			b.WriteByte(line[i])
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(line[i])
		}
	}
	if rest := strings.TrimSpace(b.String()); rest != "" {
		cells = append(cells, rest)
	}
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "<br>", "\n")
	}
	return cells
}
