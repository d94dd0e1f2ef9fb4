package cexport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// postgresDriver writes into a PostgreSQL table with pgx, on one
// connection. A batch is one transaction; its rows go in one statement per
// run of rows with the same columns: an INSERT … SELECT over unnest() of
// one text array per column, each value cast to its column's type by the
// server (so every type PostgreSQL can read from text works, numeric and
// timestamps included), with ON CONFLICT … DO UPDATE for --key. One
// statement cannot update a row twice, so within a run only the last of
// the rows sharing a key is written (as if each had been written in turn).
//
// When the database rejects a row (SQLSTATE class 22, a value its column's
// type does not take; 23, a constraint), the transaction is rolled back
// and the batch written again row by row, each under a savepoint, so only
// the rejected rows are left out.
type postgresDriver struct {
	cfg   *pgx.ConnConfig
	conn  *pgx.Conn
	ident string // the table, quoted (schema-qualified when given)
	name  string // its name as given, for index names
}

// pgConnectTimeout bounds the connection at start when the URI sets none.
const pgConnectTimeout = 10 * time.Second

func openPostgresDriver(ctx context.Context, t *dbTarget) (*postgresDriver, error) {
	cfg, err := pgx.ParseConfig(t.dsn)
	if err != nil {
		return nil, fmt.Errorf("bad PostgreSQL URI: %v", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the PostgreSQL server at %s: %w", pgServer(cfg), connectCause(err))
	}
	id := pgx.Identifier{t.table}
	if t.schema != "" {
		id = pgx.Identifier{t.schema, t.table}
	}
	return &postgresDriver{cfg: cfg, conn: conn, ident: id.Sanitize(), name: t.table}, nil
}

// connectCause is the reason a connection failed, on one line: pgx's
// error lists every attempt (with TLS, then without).
func connectCause(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe
	}
	return errors.New(strings.Join(strings.Fields(err.Error()), " "))
}

// pgServer names the server of cfg.
func pgServer(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("%s:%d (database %q, user %q)", cfg.Host, cfg.Port, cfg.Database, cfg.User)
}

func (d *postgresDriver) columnRules() columnRules { return postgresColumns }

func (d *postgresDriver) typeName(t colType) string {
	switch t {
	case colInteger:
		return "bigint"
	case colReal:
		return "double precision"
	case colBool:
		return "boolean"
	case colJSON:
		return "jsonb"
	}
	return "text"
}

// pgColType is the colType of a column whose type format_type names.
func pgColType(decl string) colType {
	switch decl {
	case "bigint", "integer", "smallint":
		return colInteger
	case "double precision", "real", "numeric":
		return colReal
	case "boolean":
		return colBool
	case "json", "jsonb":
		return colJSON
	case "text", "character varying", "character":
		return colText
	}
	return colOther
}

func (d *postgresDriver) columns(ctx context.Context) ([]column, error) {
	var exists bool
	if err := d.conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", d.ident).Scan(&exists); err != nil || !exists {
		return nil, err
	}
	rows, err := d.conn.Query(ctx, `SELECT attname::text, format_type(atttypid, NULL) FROM pg_attribute
		WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, d.ident)
	if err != nil {
		return nil, err
	}
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.decl); err != nil {
			rows.Close()
			return nil, err
		}
		c.typ = pgColType(c.decl)
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

func (d *postgresDriver) exec(ctx context.Context, q string, args ...any) error {
	_, err := d.conn.Exec(ctx, q, args...)
	return err
}

func (d *postgresDriver) create(ctx context.Context, cols []column) error {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = quoteIdent(c.name) + " " + c.decl
	}
	return d.exec(ctx, "CREATE TABLE IF NOT EXISTS "+d.ident+" ("+strings.Join(defs, ", ")+")")
}

func (d *postgresDriver) addColumn(ctx context.Context, c column) error {
	return d.exec(ctx, "ALTER TABLE "+d.ident+" ADD COLUMN IF NOT EXISTS "+quoteIdent(c.name)+" "+c.decl)
}

// empty truncates the table (-O).
func (d *postgresDriver) empty(ctx context.Context) error {
	return d.exec(ctx, "TRUNCATE "+d.ident)
}

func (d *postgresDriver) ensureKey(ctx context.Context, key []string) error {
	rows, err := d.conn.Query(ctx, `SELECT array_agg(a.attname::text) FROM pg_index i
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
		WHERE i.indrelid = $1::regclass AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
		GROUP BY i.indexrelid`, d.ident)
	if err != nil {
		return err
	}
	found := false
	for rows.Next() {
		var cols []string
		if err := rows.Scan(&cols); err != nil {
			rows.Close()
			return err
		}
		found = found || sameSet(cols, key)
	}
	if err := rows.Err(); err != nil || found {
		return err
	}
	q := make([]string, len(key))
	for i, k := range key {
		q[i] = quoteIdent(k)
	}
	return d.exec(ctx, "CREATE UNIQUE INDEX IF NOT EXISTS "+quoteIdent(keyIndexName(d.name, key))+" ON "+d.ident+" ("+strings.Join(q, ", ")+")")
}

// insertSQL is the statement that writes rows with cols: one text array
// parameter per column, unnested and cast.
func (d *postgresDriver) insertSQL(t *table, key []string, cols []int) string {
	var names, exprs, params, vs []string
	for i, c := range cols {
		col := t.cols[c]
		v := "v" + strconv.Itoa(i)
		names = append(names, quoteIdent(col.name))
		if col.typ == colText && col.decl == "text" {
			exprs = append(exprs, v)
		} else {
			exprs = append(exprs, "CAST("+v+" AS "+col.decl+")")
		}
		params = append(params, "$"+strconv.Itoa(i+1)+"::text[]")
		vs = append(vs, v)
	}
	return "INSERT INTO " + d.ident + " (" + strings.Join(names, ", ") + ") SELECT " + strings.Join(exprs, ", ") +
		" FROM unnest(" + strings.Join(params, ", ") + ") AS v(" + strings.Join(vs, ", ") + ")" + upsertClause(t, key, cols)
}

// args are the statement's parameters for rows (all with the same cols).
func pgArgs(t *table, rows []*row) []any {
	cols := rows[0].cols
	args := make([]any, len(cols))
	for i, c := range cols {
		a := make([]pgtype.Text, len(rows))
		for j, r := range rows {
			s, ok := textValue(r.vals[i], t.cols[c].typ)
			a[j] = pgtype.Text{String: s, Valid: ok}
		}
		args[i] = a
	}
	return args
}

// runs splits rows into runs of consecutive rows with the same columns,
// keeping only the last of the rows of a run that share a key.
func runs(t *table, key []string, rows []row) [][]*row {
	var out [][]*row
	var cur []*row
	var set string
	var seen map[string]int
	for i := range rows {
		r := &rows[i]
		s := colSet(r.cols)
		if cur == nil || s != set {
			if cur != nil {
				out = append(out, compact(cur))
			}
			cur, set, seen = nil, s, map[string]int{}
		}
		if len(key) > 0 {
			k := keyOf(t, key, r)
			if j, ok := seen[k]; ok {
				cur[j] = nil // written over by r
			}
			seen[k] = len(cur)
		}
		cur = append(cur, r)
	}
	if cur != nil {
		out = append(out, compact(cur))
	}
	return out
}

func compact(rs []*row) []*row {
	out := rs[:0]
	for _, r := range rs {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// keyOf is the key of r, as text.
func keyOf(t *table, key []string, r *row) string {
	var b strings.Builder
	for _, k := range key {
		for i, c := range r.cols {
			if t.cols[c].name == k {
				s, _ := textValue(r.vals[i], t.cols[c].typ)
				b.WriteString(s)
				b.WriteByte(0)
			}
		}
	}
	return b.String()
}

func (d *postgresDriver) write(ctx context.Context, t *table, key []string, rows []row, reject func(*row, error)) error {
	tx, err := d.conn.Begin(ctx)
	if err != nil {
		return err
	}
	for _, run := range runs(t, key, rows) {
		if _, err = tx.Exec(ctx, d.insertSQL(t, key, run[0].cols), pgArgs(t, run)...); err != nil {
			break
		}
	}
	if err == nil {
		err = tx.Commit(ctx)
	}
	if err == nil {
		return nil
	}
	tx.Rollback(context.WithoutCancel(ctx))
	if !pgRowError(err) {
		return err
	}
	return d.writeRows(ctx, t, key, rows, reject)
}

// writeRows writes rows one by one in a transaction, each under a
// savepoint: a row the database rejects is undone, reported, and left out.
func (d *postgresDriver) writeRows(ctx context.Context, t *table, key []string, rows []row, reject func(*row, error)) error {
	tx, err := d.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for i := range rows {
		r := &rows[i]
		b := &pgx.Batch{}
		b.Queue("SAVEPOINT cexport_row")
		b.Queue(d.insertSQL(t, key, r.cols), pgArgs(t, []*row{r})...)
		b.Queue("RELEASE SAVEPOINT cexport_row")
		err := tx.SendBatch(ctx, b).Close()
		if err == nil {
			continue
		}
		if !pgRowError(err) {
			return err
		}
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT cexport_row"); err != nil {
			return err
		}
		reject(r, d.describeRowError(ctx, tx, t, r, err))
	}
	return tx.Commit(ctx)
}

// pgRowError reports whether err is about the data (SQLSTATE class 22, a
// value; 23, a constraint; 21000, a row updated twice), not the database.
func pgRowError(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return strings.HasPrefix(pe.Code, "22") || strings.HasPrefix(pe.Code, "23") || pe.Code == "21000"
}

// describeRowError says why the database rejected r, naming the field: the
// column the error names, or else the first value its column's type does
// not take (each tried under a savepoint).
func (d *postgresDriver) describeRowError(ctx context.Context, tx pgx.Tx, t *table, r *row, err error) error {
	var pe *pgconn.PgError
	errors.As(err, &pe)
	msg := pe.Message
	if pe.Detail != "" {
		msg += " (" + pe.Detail + ")"
	}
	msg += " (SQLSTATE " + pe.Code + ")"
	field := pe.ColumnName
	if field == "" && strings.HasPrefix(pe.Code, "22") {
		field = d.probe(ctx, tx, t, r)
	}
	if field != "" {
		return fmt.Errorf("rejected by the database: field %q: %s", field, msg)
	}
	return fmt.Errorf("rejected by the database: %s", msg)
}

// probe returns the first field of r whose value its column's type does
// not take, or "".
func (d *postgresDriver) probe(ctx context.Context, tx pgx.Tx, t *table, r *row) string {
	for i, c := range r.cols {
		col := t.cols[c]
		s, ok := textValue(r.vals[i], col.typ)
		if !ok {
			continue
		}
		b := &pgx.Batch{}
		b.Queue("SAVEPOINT cexport_probe")
		b.Queue("SELECT CAST($1::text AS "+col.decl+")", s)
		b.Queue("RELEASE SAVEPOINT cexport_probe")
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT cexport_probe"); err != nil {
				return ""
			}
			return col.name
		}
	}
	return ""
}

func (d *postgresDriver) close() error {
	return d.conn.Close(context.Background())
}
