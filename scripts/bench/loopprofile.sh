#!/usr/bin/env bash
# Where the crawl loop's time goes (the frontier must not be the
# bottleneck of the loop). Prints figures; asserts nothing but page counts.
# Over the demo site (3000 products), concurrency 16, 16 per host, robots.txt
# obeyed, each case runs RUNS times (default 5), interleaved, and the
# medians are printed:
#
#   pipe   cfetch | cextract over the URLs the loop fetches, all known up
#          front (scripts/bench/frontier.sh's case 3);
#   shape  the loop's dependency structure with a frontier that costs
#          nothing: cfetch | cextract | cexport -o CSV | an in-memory queue
#          (awk: exact-URL dedupe, FIFO, SHAPE_WINDOW (256) in flight at
#          most, woken by each record, no polling)
#          fed back to cfetch through a named FIFO. A page's links are
#          known only once it is fetched and extracted, as in the loop;
#   loop   the real loop, cqueue pop --follow --window W | cfetch | cextract
#          | cexport -o CSV | cqueue push, on a fresh SQLite db, for each W
#          in WINDOWS (default "64 256").
#
# pipe → shape is what the crawl's shape and cexport cost; shape → loop is
# what the frontier costs (its CPU, pop's polling, the window). For each
# case: wall seconds, pages/s, CPU seconds of every process (GNU time per
# process; "site" is the demo site's), and "cores": all that CPU over the
# wall time. A case using as many cores as pipe is CPU-bound; fewer means
# it waits (on the window, on polling). "other" is the CPU the rest of the
# machine used meanwhile (other jobs): runs with much of it are noisy.
#
# With LATENCY set (e.g. 20ms), the demo site delays every response by
# that much: the crawl is then bound by latency, not by the two cores, and
# the loop should keep up with pipe and shape if the frontier is not its
# bottleneck.
#
#   scripts/bench/loopprofile.sh
#   RUNS=7 WINDOWS="64 256 1024" scripts/bench/loopprofile.sh
#   LATENCY=20ms WINDOWS=256 scripts/bench/loopprofile.sh
#   CASES="pipe loop" scripts/bench/loopprofile.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
CASES=${CASES:-"pipe shape loop"}
WINDOWS=${WINDOWS:-"64 256"}
SHAPE_WINDOW=${SHAPE_WINDOW:-256}
LATENCY=${LATENCY:-}
CONC=16
RULES=testdata/rules/demo.yml
export LC_ALL=C

. scripts/bench/lib.sh

[ -x /usr/bin/time ] || { say "GNU time (/usr/bin/time) is needed: apt-get install time"; exit 1; }
mkdir -p "$BIN"
say "building the tools and the demo site into $BIN"
go build -o "$BIN/" ./cmd/... ./internal/cmd/demosite
PATH="$(cd "$BIN" && pwd):$PATH"

demosite -listen 127.0.0.1:0 -ready "$work/site" ${LATENCY:+-latency "$LATENCY"} 2>>"$work/site.log" &
site_pid=$!
pids+=("$site_pid")
for _ in $(seq 100); do [ -s "$work/site" ] && break; sleep 0.1; done
[ -s "$work/site" ] || { say "the demo site did not start"; cat "$work/site.log" >&2; exit 1; }
SITE=$(cat "$work/site")

# A warm-up loop renders every page once and lists the URLs it fetches.
say "warm-up loop on $SITE"
echo "$SITE/" | cqueue push -q --db "$work/warm.db" --crawlid demo --appid demo
cqueue pop -q --db "$work/warm.db" --follow | cfetch -q -c $CONC --per-host $CONC |
	tee "$work/responses.jsonl" | cextract -q -r $RULES |
	cexport -q -o "$work/warm.csv" | cqueue push -q --db "$work/warm.db"
jq -r '.request.url // empty' "$work/responses.jsonl" >"$work/urls.txt"
rm -f "$work/responses.jsonl"
nurls=$(wc -l <"$work/urls.txt")

# The in-memory frontier of case shape: reads requests and acks, hands out
# new URLs with a lease, at most SHAPE_WINDOW in flight, and exits (closing
# cfetch's input) when nothing is queued or in flight. Being one thread, it
# must never block writing: what it has in flight must fit in the FIFO's
# 64 KiB even when cfetch has stopped reading (its output blocked), or the
# loop's pipes fill up and deadlock. 256 of the demo site's ~210-byte
# requests do.
frontier_awk='
function handout(  r, n0) {
	n0 = n
	while (head < tail && inflight < window) {
		r = q[head]; delete q[head]; head++
		n++; sub(/^\{/, "{\"lease\":\"L" n "\",", r)
		print r; inflight++
	}
	if (n > n0) fflush()
	if (inflight == 0) exit
}
BEGIN { head = tail = n = inflight = 0; q[tail++] = "{\"kind\":\"request\",\"url\":\"" seed "\"}"; seen[seed] = 1; handout() }
/^\{"kind":"ack"/ { inflight--; handout(); next }
/^\{"kind":"request"/ {
	if (match($0, /"url":"[^"]*"/)) {
		u = substr($0, RSTART + 7, RLENGTH - 8)
		if (!(u in seen)) { seen[u] = 1; q[tail++] = $0 }
	}
	handout()
}'

# An awk that handles each line as it comes (mawk waits for a full buffer
# unless told otherwise).
awk_i=(awk)
if command -v mawk >/dev/null; then awk_i=(mawk -W interactive); fi

# T NAME CMD...: runs CMD under GNU time into $work/t.NAME ("cpu_s").
T() {
	local name=$1
	shift
	/usr/bin/time -f '%U %S' -o "$work/t.$name" "$@"
}
procs="pop fetch extract export push queue"
hz=$(getconf CLK_TCK) # the unit of /proc's CPU times
site_cpu() { awk '{ print $14 + $15 }' "/proc/$site_pid/stat"; }
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# run CASE R [WINDOW]: one run; appends "wall pages CPU-of-each-proc site
# other" to $work/res.LABEL.
run() {
	local c=$1 r=$2 win=${3:-} label=$1 s0 b0 t0 t1 pages
	[ -z "$win" ] || label="loop-w$win"
	rm -f "$work"/t.* "$work/out.csv" "$work/loop.db"* "$work/fetch.json" "$work/fifo"
	s0=$(site_cpu)
	b0=$(busy)
	t0=$(date +%s%N)
	case $c in
	pipe)
		T fetch cfetch -q -c $CONC --per-host $CONC --stats "$work/fetch.json" <"$work/urls.txt" |
			T extract cextract -q -r $RULES >/dev/null
		;;
	shape)
		mkfifo "$work/fifo"
		T fetch cfetch -q -c $CONC --per-host $CONC --stats "$work/fetch.json" <"$work/fifo" |
			T extract cextract -q -r $RULES | T export cexport -q -o "$work/out.csv" |
			T queue timeout 600 sh -c 'f=$1; shift; exec "$@" >"$f"' sh "$work/fifo" \
				"${awk_i[@]}" -v seed="$SITE/" -v window="$SHAPE_WINDOW" "$frontier_awk"
		;;
	loop)
		echo "$SITE/" | cqueue push -q --db "$work/loop.db" --crawlid demo --appid demo
		T pop cqueue pop -q --db "$work/loop.db" --follow --window "$win" |
			T fetch cfetch -q -c $CONC --per-host $CONC --stats "$work/fetch.json" |
			T extract cextract -q -r $RULES | T export cexport -q -o "$work/out.csv" |
			T push cqueue push -q --db "$work/loop.db"
		;;
	esac
	t1=$(date +%s%N)
	pages=$(jq .in "$work/fetch.json")
	[ "$pages" -eq "$nurls" ] || say "$label run $r fetched $pages pages, not $nurls"
	if [ "$c" != pipe ] && [ "$(($(wc -l <"$work/out.csv") - 1))" -ne 2919 ]; then
		say "$label run $r exported $(($(wc -l <"$work/out.csv") - 1)) products, not 2919"
	fi
	local line ours=0 cpu
	line="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') $pages"
	for p in $procs; do
		cpu=0
		[ -s "$work/t.$p" ] && cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$work/t.$p")
		ours=$(awk -v a="$ours" -v b="$cpu" 'BEGIN { print a + b }')
		line+=" $cpu"
	done
	local site other
	site=$(awk -v a="$s0" -v b="$(site_cpu)" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz }')
	other=$(awk -v a="$b0" -v b="$(busy)" -v hz="$hz" -v o="$ours" -v s="$site" 'BEGIN { printf "%.2f", (b - a) / hz - o - s }')
	echo "$line $site $other" >>"$work/res.$label"
}

labels=()
for c in $CASES; do
	if [ "$c" = loop ]; then
		for w in $WINDOWS; do labels+=("loop-w$w"); done
	else
		labels+=("$c")
	fi
done
for r in $(seq "$RUNS"); do
	for l in "${labels[@]}"; do
		say "run $r: $l"
		case $l in
		loop-w*) run loop "$r" "${l#loop-w}" ;;
		*) run "$l" "$r" ;;
		esac
	done
done

# Medians of each column; cores = median of (all CPU + site) / wall.
echo
echo "crawl loop profile: $(nproc) cores, demo site${LATENCY:+ (responses delayed $LATENCY)}, $nurls pages, concurrency $CONC, $CONC per host; medians of $RUNS runs"
printf '  %-12s %7s %8s %6s  %s\n' case wall pages/s cores "CPU s: pop fetch extract export push queue site | other"
for l in "${labels[@]}"; do
	awk '
		{ for (i = 1; i <= NF; i++) v[i, NR] = $i
		  c = 0; for (i = 3; i <= NF - 1; i++) c += $i
		  v["cores", NR] = c / $1; v["rate", NR] = $2 / $1; nf = NF }
		function med(k,   a, n, i, j, t) {
			for (i = 1; i <= NR; i++) a[i] = v[k, i]
			for (i = 2; i <= NR; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		}
		END {
			printf "  %-12s %6.2fs %8.0f %6.2f  ", label, med(1), med("rate"), med("cores")
			for (i = 3; i < nf; i++) printf "%s%.2f", (i > 3 ? " " : ""), med(i)
			printf " | %.2f\n", med(nf)
		}' label="$l" "$work/res.$l"
done
