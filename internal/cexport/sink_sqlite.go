package cexport

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/storage"
	"modernc.org/sqlite"
)

// sqliteDriver writes into a table of an SQLite file, opened the way every
// crawlutils store opens one (storage.OpenDB: WAL, busy timeout, BEGIN
// IMMEDIATE), with synchronous=FULL: a commit is fsynced before the acks
// of its items pass on, as a file export is. The batch is written on one
// connection, each row with a statement prepared once per set of columns.
//
// SQLite's columns take any value (type affinity): a number stays a
// number in an INTEGER or REAL column, text that is not a number is
// stored as text there. So the rows it rejects are those that break a
// constraint (NOT NULL, UNIQUE, CHECK) or a STRICT table's types.
type sqliteDriver struct {
	db    *storage.DB
	conn  *sql.Conn
	path  string
	table string // quoted
	name  string // as given
	stmts map[string]*sql.Stmt
}

func openSQLiteDriver(ctx context.Context, t *dbTarget) (*sqliteDriver, error) {
	db, err := storage.OpenDB(ctx, t.dsn, storage.DefaultBusyTimeout)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, "PRAGMA synchronous=FULL")
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		db.Close()
		return nil, describeSQLite(err)
	}
	return &sqliteDriver{db: db, conn: conn, path: t.dsn, table: quoteIdent(t.table), name: t.table, stmts: map[string]*sql.Stmt{}}, nil
}

func describeSQLite(err error) error {
	return storage.DescribeSQLiteError(err, storage.DefaultBusyTimeout)
}

func (d *sqliteDriver) columnRules() columnRules { return sqliteColumns }

func (d *sqliteDriver) typeName(t colType) string {
	switch t {
	case colInteger, colBool:
		return "INTEGER"
	case colReal:
		return "REAL"
	}
	return "TEXT"
}

func (d *sqliteDriver) columns(ctx context.Context) ([]column, error) {
	rows, err := d.conn.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?)", d.name)
	if err != nil {
		return nil, describeSQLite(err)
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.decl); err != nil {
			return nil, describeSQLite(err)
		}
		c.typ = sqliteAffinity(c.decl)
		cols = append(cols, c)
	}
	return cols, describeSQLite(rows.Err())
}

// sqliteAffinity maps a declared type to a colType by SQLite's affinity
// rules (the first that matches: INT, CHAR/CLOB/TEXT, REAL/FLOA/DOUB).
func sqliteAffinity(decl string) colType {
	u := strings.ToUpper(decl)
	switch {
	case strings.Contains(u, "INT"):
		return colInteger
	case strings.Contains(u, "CHAR"), strings.Contains(u, "CLOB"), strings.Contains(u, "TEXT"):
		return colText
	case strings.Contains(u, "REAL"), strings.Contains(u, "FLOA"), strings.Contains(u, "DOUB"):
		return colReal
	}
	return colOther
}

func (d *sqliteDriver) exec(ctx context.Context, q string, args ...any) error {
	_, err := d.conn.ExecContext(ctx, q, args...)
	return describeSQLite(err)
}

func (d *sqliteDriver) create(ctx context.Context, cols []column) error {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = quoteIdent(c.name) + " " + c.decl
	}
	return d.exec(ctx, "CREATE TABLE IF NOT EXISTS "+d.table+" ("+strings.Join(defs, ", ")+")")
}

func (d *sqliteDriver) addColumn(ctx context.Context, c column) error {
	err := d.exec(ctx, "ALTER TABLE "+d.table+" ADD COLUMN "+quoteIdent(c.name)+" "+c.decl)
	if err != nil && strings.Contains(err.Error(), "duplicate column name") {
		return nil // another process added it
	}
	return err
}

func (d *sqliteDriver) empty(ctx context.Context) error {
	return d.exec(ctx, "DELETE FROM "+d.table)
}

// ensureKey creates a unique index on the key columns unless the table has
// one (a PRIMARY KEY or UNIQUE constraint counts) on exactly them.
func (d *sqliteDriver) ensureKey(ctx context.Context, key []string) error {
	rows, err := d.conn.QueryContext(ctx, `SELECT l.name, i.name FROM pragma_index_list(?) AS l, pragma_index_info(l.name) AS i WHERE l."unique" AND NOT l.partial`, d.name)
	if err != nil {
		return describeSQLite(err)
	}
	idx := map[string][]string{}
	for rows.Next() {
		var index string
		var col sql.NullString // NULL for an expression
		if err := rows.Scan(&index, &col); err != nil {
			rows.Close()
			return describeSQLite(err)
		}
		idx[index] = append(idx[index], col.String)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return describeSQLite(err)
	}
	for _, cols := range idx {
		if sameSet(cols, key) {
			return nil
		}
	}
	q := make([]string, len(key))
	for i, k := range key {
		q[i] = quoteIdent(k)
	}
	name := quoteIdent(keyIndexName(d.name, key))
	return d.exec(ctx, "CREATE UNIQUE INDEX IF NOT EXISTS "+name+" ON "+d.table+" ("+strings.Join(q, ", ")+")")
}

// keyIndexName names the unique index cexport makes for --key:
// TABLE_key_FIELD_FIELD. A name over maxIdent bytes is cut at a character
// and ends with a hash of the table and key, so that another key of the
// same table names another index.
func keyIndexName(table string, key []string) string {
	n := table + "_key_" + strings.Join(key, "_")
	if len(n) <= maxIdent {
		return n
	}
	sum := sha256.Sum256([]byte(table + "\x00" + strings.Join(key, "\x00")))
	suffix := "_" + hex.EncodeToString(sum[:4])
	cut := maxIdent - len(suffix)
	for cut > 0 && !utf8.RuneStart(n[cut]) {
		cut--
	}
	return n[:cut] + suffix
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// stmt returns the statement that writes a row with these columns.
func (d *sqliteDriver) stmt(ctx context.Context, t *table, key []string, cols []int) (*sql.Stmt, error) {
	k := colSet(cols)
	if st := d.stmts[k]; st != nil {
		return st, nil
	}
	st, err := d.conn.PrepareContext(ctx, insertSQL(d.table, t, key, cols, "?"))
	if err != nil {
		return nil, describeSQLite(err)
	}
	d.stmts[k] = st
	return st, nil
}

// insertSQL is the INSERT (an upsert with key) of one row with cols; param
// returns the placeholder of the i-th value.
func insertSQL(tableName string, t *table, key []string, cols []int, param string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + tableName + " (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(t.cols[c].name))
	}
	b.WriteString(") VALUES (")
	for i := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(param)
	}
	b.WriteString(")")
	b.WriteString(upsertClause(t, key, cols))
	return b.String()
}

// upsertClause is the ON CONFLICT clause of an upsert on key: the row's
// other columns take the new values, columns it lacks keep theirs.
func upsertClause(t *table, key []string, cols []int) string {
	if len(key) == 0 {
		return ""
	}
	q := make([]string, len(key))
	for i, k := range key {
		q[i] = quoteIdent(k)
	}
	var set []string
	for _, c := range cols {
		name := t.cols[c].name
		if !slices.Contains(key, name) {
			set = append(set, quoteIdent(name)+" = excluded."+quoteIdent(name))
		}
	}
	if len(set) == 0 {
		return " ON CONFLICT (" + strings.Join(q, ", ") + ") DO NOTHING"
	}
	return " ON CONFLICT (" + strings.Join(q, ", ") + ") DO UPDATE SET " + strings.Join(set, ", ")
}

// sqliteValue is a JSON value as bound for SQLite: null as NULL, integers
// that fit as INTEGER, other numbers as their text (the column's affinity
// makes them REAL, a TEXT column keeps them exactly as written), booleans
// as 1 and 0, strings decoded, objects and arrays as JSON text.
func sqliteValue(v json.RawMessage) any {
	switch v[0] {
	case 'n':
		return nil
	case 't':
		return int64(1)
	case 'f':
		return int64(0)
	case '"':
		return jsonString(v)
	case '{', '[':
		return string(appendCompact(nil, v))
	}
	if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return i
	}
	return string(v)
}

func (d *sqliteDriver) write(ctx context.Context, t *table, key []string, rows []row, reject func(*row, error)) (err error) {
	if _, err := d.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return describeSQLite(err)
	}
	defer func() {
		if err != nil {
			d.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	var args []any
	for i := range rows {
		r := &rows[i]
		st, err := d.stmt(ctx, t, key, r.cols)
		if err != nil {
			return err
		}
		args = args[:0]
		for _, v := range r.vals {
			args = append(args, sqliteValue(v))
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			if !sqliteRowError(err) {
				return describeSQLite(err)
			}
			// SQLite undid the statement; the transaction goes on.
			reject(r, fmt.Errorf("rejected by the database: %v", err))
		}
	}
	if _, err := d.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return describeSQLite(err)
	}
	return nil
}

// sqliteRowError reports whether err is about the row (a constraint, a
// type a STRICT column refuses, a value too big), not the database.
func sqliteRowError(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case 18, 19, 20: // SQLITE_TOOBIG, SQLITE_CONSTRAINT, SQLITE_MISMATCH
		return true
	}
	return false
}

func (d *sqliteDriver) close() error {
	for _, st := range d.stmts {
		st.Close()
	}
	d.conn.Close()
	return d.db.Close()
}
