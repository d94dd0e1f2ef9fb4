#!/usr/bin/env bash
# cexport's throughput per sink (docs/performance.md, section "cexport"):
# N (default 1,000,000) small item records, read from a file, written by
# the cexport command with -O (a new export each run), RUNS times each
# (default 3), interleaved; prints the median wall time, items/s and CPU
# seconds of each case, and the output's size.
#
#   1. JSON lines             -O items.jsonl
#   2. CSV                    -O items.csv
#   3. gzip CSV               -O items.csv.gz
#   4. SQLite upsert          -O 'sqlite:items.db?table=items' --key url, into
#                             an empty table, then again over its N rows (-o:
#                             every row updated)
#   5. PostgreSQL upsert      the same into a PostgreSQL server started here
#                             (Debian's postgresql; fsync on, default settings)
#
#   scripts/bench/export.sh              everything
#   N=100000 scripts/bench/export.sh     fewer items
#   CASES="4 5" scripts/bench/export.sh  some cases only
#
# As root, the PostgreSQL server runs as the user postgres (initdb refuses
# root). Missing tools (GNU time, postgresql) are installed with apt-get,
# except under CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
CASES=${CASES:-"1 2 3 4 5"}
N=${N:-1000000}
export LC_ALL=C

. scripts/bench/lib.sh

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }
missing=()
[ -x /usr/bin/time ] || missing+=(time)
if has_case 5 && [ -z "$(pg_bin)" ]; then missing+=(postgresql); fi
apt_install "${missing[@]}"
[ -x /usr/bin/time ] || { say "GNU time (/usr/bin/time) is needed"; exit 1; }

mkdir -p "$BIN"
say "building cexport into $BIN"
go build -o "$BIN/" ./cmd/cexport
PATH="$(cd "$BIN" && pwd):$PATH"

say "writing $N items"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "{\"kind\":\"item\",\"data\":{\"url\":\"https://shop.example/p/%d\",\"title\":\"Product %d\",\"price\":%d.%02d,\"stock\":%d,\"tags\":[\"a\",\"b\"]}}\n", i, i, i % 1000, i % 100, i % 7 }' >"$work/items.jsonl"

# PostgreSQL: a cluster of its own on a free loopback port.
pg_url=
pg_dir=
pg_as=()
pg_stop() {
	[ -n "$pg_dir" ] || return 0
	"${pg_as[@]}" "$(pg_bin)/pg_ctl" -D "$pg_dir/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$pg_dir"
}
pg_start() {
	local bin port
	bin=$(pg_bin)
	pg_dir=$(mktemp -d /tmp/cexport-bench-pg.XXXXXX)
	if [ "$(id -u)" -eq 0 ]; then
		chown postgres: "$pg_dir"
		pg_as=(runuser -u postgres --)
	fi
	(cd "$pg_dir" && "${pg_as[@]}" "$bin/initdb" -D "$pg_dir/data" -U postgres -A trust -E UTF8 --locale=C >/dev/null)
	for _ in $(seq 20); do
		port=$((20000 + RANDOM % 20000))
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
	done
	(cd "$pg_dir" && "${pg_as[@]}" "$bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w \
		-o "-p $port -k $pg_dir -c listen_addresses=127.0.0.1" start >/dev/null)
	pg_url="postgres://postgres@127.0.0.1:$port/postgres"
}
trap 'pg_stop; cleanup' EXIT
if has_case 5; then
	say "starting PostgreSQL ($(pg_bin))"
	pg_start
fi

# run NAME CMD...: one timed run of CMD (stdin: the items), result appended
# to $work/res.NAME.RUN as "wall cpu rss".
run() {
	local name=$1
	shift
	timed "$work/res.$name.$r" "$@" <"$work/items.jsonl" || { say "$name failed"; exit 1; }
}

cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
printf 'cexport throughput: %s items, %s cores (%s), %s; medians of %s runs\n' \
	"$N" "$(nproc)" "$cpu_model" "$(go version | cut -d' ' -f3)" "$RUNS"

for r in $(seq "$RUNS"); do
	say "run $r of $RUNS"
	if has_case 1; then run jsonl cexport -q -O "$work/out.jsonl"; fi
	if has_case 2; then run csv cexport -q -O "$work/out.csv"; fi
	if has_case 3; then run csvgz cexport -q -O "$work/out.csv.gz"; fi
	if has_case 4; then
		rm -f "$work/out.db"*
		run sqlite cexport -q -O "sqlite:$work/out.db?table=items" --key url
		run sqlite2 cexport -q -o "sqlite:$work/out.db?table=items" --key url
	fi
	if has_case 5; then
		run pg cexport -q -O "$pg_url?table=items" --key url
		run pg2 cexport -q -o "$pg_url?table=items" --key url
	fi
done

line() {
	local wall cpu
	wall=$(medcol "$1" 1)
	cpu=$(medcol "$1" 2)
	printf '  %-46s %8.2f s %10.0f items/s %8.2f s CPU  %s\n' "$2" "$wall" "$(echo "$N $wall" | awk '{ print $1 / $2 }')" "$cpu" "$3"
}
size() { du -h "$1" 2>/dev/null | cut -f1; }
has_case 1 && line jsonl "JSON lines" "$(size "$work/out.jsonl")"
has_case 2 && line csv "CSV" "$(size "$work/out.csv")"
has_case 3 && line csvgz "gzip CSV" "$(size "$work/out.csv.gz")"
has_case 4 && line sqlite "SQLite upsert (empty table)" "$(size "$work/out.db")"
has_case 4 && line sqlite2 "SQLite upsert (over its rows: all updated)" "$(size "$work/out.db")"
has_case 5 && line pg "PostgreSQL upsert (empty table)" ""
has_case 5 && line pg2 "PostgreSQL upsert (over its rows: all updated)" ""
exit 0
