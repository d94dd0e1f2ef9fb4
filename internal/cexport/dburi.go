package cexport

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Database outputs. -o and -O take a table in a database as well as a
// file, named by one convention for every database:
//
//	sqlite:PATH?table=NAME                    an SQLite file (created if missing)
//	postgres://USER@HOST:PORT/DB?table=NAME   a PostgreSQL database (postgresql:// too)
//
// The part before the query is the database as its own tools name it (a
// file path for SQLite; a libpq connection URI for PostgreSQL, whose other
// parameters, sslmode=… and the like, go to the driver). table names the
// table, items when it is left out; for PostgreSQL it may be SCHEMA.NAME.

// Database drivers.
const (
	driverSQLite   = "sqlite"
	driverPostgres = "postgres"
)

const defaultTable = "items"

// maxIdent is the longest table or column name, in bytes: PostgreSQL cuts
// longer names short (NAMEDATALEN - 1), which would make two fields one
// column. SQLite takes the same limit, so a table moves between the two.
const maxIdent = 63

// dbTarget is a database output.
type dbTarget struct {
	driver string
	// dsn is the SQLite file's path, or the PostgreSQL URI without table.
	dsn string
	// schema (PostgreSQL only, "" for the search path) and table name the
	// table.
	schema, table string
	// display names the output in messages, without a password.
	display string
}

// parseDBTarget returns the database output s names, or nil when s is not
// one (a file, or stdout).
func parseDBTarget(s string) (*dbTarget, error) {
	switch {
	case strings.HasPrefix(s, "sqlite:"):
		return parseSQLiteTarget(s)
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		return parsePostgresTarget(s)
	}
	return nil, nil
}

func parseSQLiteTarget(s string) (*dbTarget, error) {
	path, query, _ := strings.Cut(strings.TrimPrefix(s, "sqlite:"), "?")
	// As some tools write it: sqlite:///abs/items.db is /abs/items.db,
	// sqlite://items.db is items.db.
	path = strings.TrimPrefix(path, "//")
	if path == "" {
		return nil, errors.New("no database file (sqlite:FILE?table=NAME)")
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("bad query: %v", err)
	}
	for k := range q {
		if k != "table" {
			return nil, fmt.Errorf("unknown parameter %q (sqlite: takes table=NAME only)", k)
		}
	}
	table, err := tableParam(q)
	if err != nil {
		return nil, err
	}
	return &dbTarget{driver: driverSQLite, dsn: path, table: table, display: s}, nil
}

func parsePostgresTarget(s string) (*dbTarget, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("not a PostgreSQL URI: %v", err)
	}
	q := u.Query()
	table, err := tableParam(q)
	if err != nil {
		return nil, err
	}
	t := &dbTarget{driver: driverPostgres, table: table, display: u.Redacted()}
	if schema, name, ok := strings.Cut(table, "."); ok {
		if err := checkIdent("schema", schema); err != nil {
			return nil, err
		}
		if err := checkIdent("table", name); err != nil {
			return nil, err
		}
		t.schema, t.table = schema, name
	}
	q.Del("table")
	u.RawQuery = q.Encode()
	t.dsn = u.String()
	return t, nil
}

// historySuffix makes the name of the --history table.
const historySuffix = "_history"

// historyTable is the name of the --history table of t: TABLE_history.
func (t *dbTarget) historyTable() string { return t.table + historySuffix }

// tableParam is the table=NAME parameter, items when absent.
func tableParam(q url.Values) (string, error) {
	v, ok := q["table"]
	switch {
	case !ok:
		return defaultTable, nil
	case len(v) > 1:
		return "", errors.New("table= given twice")
	}
	return v[0], checkIdent("table", strings.ReplaceAll(v[0], ".", "_"))
}

// checkIdent checks a table or column name: any text, but not empty, with
// no NUL, and at most maxIdent bytes.
func checkIdent(what, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty %s name", what)
	case len(name) > maxIdent:
		return fmt.Errorf("%s name %q is longer than %d bytes", what, name, maxIdent)
	case strings.IndexByte(name, 0) >= 0 || !utf8.ValidString(name):
		return fmt.Errorf("%s name %q has a NUL byte or invalid UTF-8", what, name)
	}
	return nil
}

// redactURI hides the password of a database URI, for messages.
func redactURI(s string) string {
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		if u, err := url.Parse(s); err == nil {
			return u.Redacted()
		}
		return "postgres://…"
	}
	return s
}

// quoteIdent quotes a table or column name for SQL (both databases).
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
