package cexport

import (
	"errors"
	"fmt"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ascii"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/jackc/pgx/v5/pgconn"
)

// What a database allows of a table's columns, checked for each item
// before its fields become columns, so that a crawled field name the
// database cannot take rejects that item (reported, exit status 3) instead
// of failing the export and rolling back the open batch (and every rerun
// after it). A feed rule without fields lets the site choose the names.

// columnRules are one database's rules for column names.
type columnRules struct {
	db string // "SQLite", "PostgreSQL", for messages
	// maxColumns is the most columns a table may have: SQLite's
	// SQLITE_MAX_COLUMN (2000, as built), PostgreSQL's 1600.
	maxColumns int
	// foldsCase: column names that differ only in ASCII case are the same
	// column (SQLite, which folds A-Z and nothing else: "Цена" and "цена",
	// or "K" and the Kelvin sign, are two columns); PostgreSQL's quoted
	// names are case-sensitive, ASCII or not.
	foldsCase bool
	// reserved are names the database keeps for itself (PostgreSQL's
	// system columns), lower case.
	reserved map[string]bool
}

var (
	sqliteColumns   = columnRules{db: "SQLite", maxColumns: 2000, foldsCase: true}
	postgresColumns = columnRules{db: "PostgreSQL", maxColumns: 1600, reserved: map[string]bool{
		"tableoid": true, "xmin": true, "cmin": true, "xmax": true, "cmax": true, "ctid": true, "oid": true,
	}}
)

// checkNames says why fields cannot be columns of the table (tbl, nil
// when it is not created yet) under rules r, or nil.
func (r columnRules) checkNames(fields []record.Field, tbl *table) error {
	seen := make(map[string]string, len(fields))
	for _, f := range fields {
		if r.reserved[f.Key] || (r.foldsCase && r.reserved[ascii.Lower(f.Key)]) {
			return fmt.Errorf("field %q cannot be a column: %s keeps that name for a system column (--fields renames it: --fields '%s:%s_')", f.Key, r.db, f.Key, f.Key)
		}
		if !r.foldsCase {
			continue
		}
		folded := ascii.Lower(f.Key)
		if other, ok := seen[folded]; ok {
			return fmt.Errorf("fields %q and %q cannot both be columns: %s column names ignore case", other, f.Key, r.db)
		}
		seen[folded] = f.Key
		if tbl == nil {
			continue
		}
		if _, ok := tbl.index[f.Key]; ok {
			continue
		}
		for _, c := range tbl.cols {
			if ascii.EqualFold(c.name, f.Key) {
				return fmt.Errorf("field %q cannot be a column: the table has a column %q, and %s column names ignore case", f.Key, c.name, r.db)
			}
		}
	}
	have := 0
	if tbl != nil {
		have = len(tbl.cols)
	}
	add := 0
	for _, f := range fields {
		if tbl == nil {
			add++
		} else if _, ok := tbl.index[f.Key]; !ok {
			add++
		}
	}
	if add > 0 && have+add > r.maxColumns {
		return fmt.Errorf("its fields would make %d columns, over the %d a %s table may have", have+add, r.maxColumns, r.db)
	}
	return nil
}

// schemaRefusal reports whether err is the database refusing a column
// (a name it takes for another, too many columns), not a failure of the
// database itself (a full disk, a lost connection): the item is then
// rejected, and the export goes on.
func schemaRefusal(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 42: syntax error or access rule violation (42701 duplicate
		// column, 42P16, …); 54: program limit exceeded (54011 too many
		// columns).
		return strings.HasPrefix(pe.Code, "42") || strings.HasPrefix(pe.Code, "54")
	}
	msg := err.Error()
	return strings.Contains(msg, "duplicate column name") || strings.Contains(msg, "too many columns")
}
