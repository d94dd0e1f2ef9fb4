# Shared by the benchmark sections (sourced from the repository's top, after
# CASES is set): a work folder removed at exit (kept with KEEP_WORK=1, for
# its logs) with the processes started in pids, and small helpers.
work=$(mktemp -d)
BIN=${BIN:-$work/bin}
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	if [ -n "${KEEP_WORK:-}" ]; then say "work folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

say() { printf 'bench: %s\n' "$*" >&2; }
has_case() { [[ " $CASES " == *" $1 "* ]]; }
has_scrapy() { /usr/bin/python3 -c 'import scrapy' >/dev/null 2>&1; }

# apt_install PKG...: installs the Debian packages a benchmark lacks (never
# under CI, where their cases are skipped); says what it could not.
apt_install() {
	[ $# -eq 0 ] && return
	if [ -n "${CI:-}" ]; then
		say "missing $*; not installed under CI, their cases are skipped"
		return
	fi
	say "installing $*"
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get install -y "$@" >&2 || say "could not install $*; their cases are skipped"
}

# start_site [FLAG...]: starts demosite (on PATH) with FLAGs on a free
# loopback port, logging to $work/site.log; sets SITE (its base URL) and
# site_pid. stop_site stops it.
start_site() {
	rm -f "$work/site"
	demosite -listen 127.0.0.1:0 -ready "$work/site" "$@" 2>>"$work/site.log" &
	site_pid=$!
	pids+=("$site_pid")
	for _ in $(seq 100); do [ -s "$work/site" ] && break; sleep 0.1; done
	[ -s "$work/site" ] || { say "the demo site did not start"; cat "$work/site.log" >&2; exit 1; }
	SITE=$(cat "$work/site")
}
stop_site() {
	kill "$site_pid" 2>/dev/null || true
	wait "$site_pid" 2>/dev/null || true
	local p rest=()
	for p in "${pids[@]}"; do [ "$p" = "$site_pid" ] || rest+=("$p"); done
	pids=("${rest[@]}")
}

# timed FILE CMD...: runs CMD under GNU time (stdout discarded); writes
# "wall_s cpu_s rss_kb" to FILE and returns CMD's status. CPU includes every
# waited-for child; RSS is the largest process's.
timed() {
	local out=$1 rc=0
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" >/dev/null || rc=$?
	tail -n1 "$work/time.txt" | awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' >"$out"
	return $rc
}

# median: the median of the numbers on stdin; "-" if there are none.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# medcol NAME K: the median of column K over $work/res.NAME.*, leaving out
# "-" (not measured).
medcol() { cat "$work/res.$1".* | awk -v k="$2" '$k != "-" { print $k }' | median; }

# figures NAME: medians over $work/res.NAME.* (lines "wall cpu rss pages",
# more columns ignored): prints "wall_s pages pages/s cpu_ms_per_page rss_mb
# cpu_s".
figures() {
	local wall pages rate cpu rss cpus
	wall=$(medcol "$1" 1)
	pages=$(medcol "$1" 4)
	rate=$(cat "$work/res.$1".* | awk '{ print $4 / $1 }' | median)
	cpu=$(cat "$work/res.$1".* | awk '{ print $2 / $4 * 1000 }' | median)
	cpus=$(medcol "$1" 2)
	rss=$(cat "$work/res.$1".* | awk '{ print $3 / 1024 }' | median)
	printf '%.2f %.0f %.0f %.3f %.1f %.2f\n' "$wall" "$pages" "$rate" "$cpu" "$rss" "$cpus"
}

# prepare_crawlers installs what the crawlers of $CASES need (GNU time,
# python3-scrapy), sets crawlers to those that can run, and builds the
# tools, the demo site and the colly peer into $BIN, first on PATH.
prepare_crawlers() {
	missing=()
	[ -x /usr/bin/time ] || missing+=(time)
	if has_case scrapy && ! has_scrapy; then missing+=(python3-scrapy); fi
	apt_install "${missing[@]}"
	[ -x /usr/bin/time ] || { say "GNU time (/usr/bin/time) is needed"; exit 1; }
	crawlers=()
	for c in $CASES; do
		if [ "$c" = scrapy ] && ! has_scrapy; then say "python3-scrapy is not installed: Scrapy is skipped"; continue; fi
		crawlers+=("$c")
	done

	mkdir -p "$BIN"
	BIN=$(cd "$BIN" && pwd)
	say "building the tools, the demo site and the colly peer into $BIN"
	go build -o "$BIN/" ./cmd/... ./internal/cmd/demosite
	(cd scripts/bench/colly && go build -o "$BIN/colly-demo" .)
	PATH="$BIN:$PATH"
}
