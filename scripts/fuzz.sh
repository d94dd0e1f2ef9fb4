#!/usr/bin/env bash
# Fuzz every fuzz target in the tree for a bounded time each. `go test` runs
# the targets only on their seed corpus; this generates new inputs. The
# differential targets (the JSON scanner against encoding/json, the fast
# HTML parser against x/net/html, the encoders against their decoders, the
# canonicalizer against w3lib's answers) check more than "no panic", so a
# few seconds of them finds real disagreements.
#
#   scripts/fuzz.sh                     every target, FUZZ_TIME each; the whole run within FUZZ_BUDGET
#   scripts/fuzz.sh --long 5m           every target for 5m each, no total budget (on demand)
#   scripts/fuzz.sh --list              list the targets (package and name) and exit
#   FUZZ_TARGETS='FuzzScanObject robots.FuzzAllowed internal/record.FuzzParse' scripts/fuzz.sh
#
# Environment:
#   FUZZ_TIME      time per target, a Go duration of h, m and s (default 4s)
#   FUZZ_BUDGET    seconds the whole run may take, build included (default 280; 0: none).
#                  When the build took long (a cold build cache), the targets left get
#                  less than FUZZ_TIME each, never under 1s, so that the run ends in time.
#   FUZZ_TARGETS   targets to run, space- or comma-separated: NAME (in every package
#                  that has it), PKG.NAME (PKG a trailing part of the package's
#                  directory: record, cextract/sitemap, internal/record)
#   FUZZ_PARALLEL  fuzzing workers per target (default: GOMAXPROCS, all the cores)
#
# A crasher is written by Go to PKG/testdata/fuzz/FuzzX/<hash>. The script
# goes on with the other targets, then names every target that failed, its
# input file and the failure, and exits 1: commit the input as a seed (it then
# runs in every `go test`) and fix the bug.
#
# Each package's test binary is built once with fuzzing instrumentation
# (`go test -c -fuzz`) and run once per target from the package's directory,
# as `go test -fuzz` does (and with the same corpus cache, under GOCACHE/fuzz)
# but without relinking per target: that cut the fixed cost per target from
# about 6s to under 1s.
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C

FUZZ_TIME=${FUZZ_TIME:-4s}
FUZZ_BUDGET=${FUZZ_BUDGET:-280}
FUZZ_TARGETS=${FUZZ_TARGETS:-}
FUZZ_PARALLEL=${FUZZ_PARALLEL:-}
minimize=10s # time to shrink a crasher; --long gives it Go's default, 1m
list=

while [ $# -gt 0 ]; do
	case $1 in
	--long)
		[ $# -ge 2 ] || { echo "fuzz.sh: --long needs a duration, e.g. --long 5m" >&2; exit 2; }
		FUZZ_TIME=$2 FUZZ_BUDGET=0 minimize=1m
		shift 2 ;;
	--list) list=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "fuzz.sh: unknown argument $1 (want --long DURATION, --list or --help)" >&2; exit 2 ;;
	esac
done

# seconds prints a duration made of h, m and s (1h, 5m, 1m30s, 4s) in
# seconds; it fails on anything else (1.5s, 1000x).
seconds() {
	local d=$1 n=0
	[[ $d =~ ^([0-9]+h)?([0-9]+m)?([0-9]+s)?$ && -n $d ]] || return 1
	[ -z "${BASH_REMATCH[1]}" ] || n=$((n + 3600 * ${BASH_REMATCH[1]%h}))
	[ -z "${BASH_REMATCH[2]}" ] || n=$((n + 60 * ${BASH_REMATCH[2]%m}))
	[ -z "${BASH_REMATCH[3]}" ] || n=$((n + ${BASH_REMATCH[3]%s}))
	echo "$n"
}
if ! fuzz_secs=$(seconds "$FUZZ_TIME"); then
	echo "fuzz.sh: FUZZ_TIME=$FUZZ_TIME: want a duration of h, m and s, e.g. 4s, 5m, 1m30s" >&2
	exit 2
fi
minimize_secs=$(seconds "$minimize")
[[ $FUZZ_BUDGET =~ ^[0-9]+$ ]] || { echo "fuzz.sh: FUZZ_BUDGET=$FUZZ_BUDGET: want whole seconds" >&2; exit 2; }

# The targets: "pkgdir name" per line, found in the test files themselves so
# that a new target is fuzzed without being listed here.
all=$(grep -rE --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*\(' --exclude-dir=.cache --exclude-dir=testdata . |
	sed -E 's#^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1 \2#' | sort -u)
if [ -z "$all" ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi

selected=$all
if [ -n "$FUZZ_TARGETS" ]; then
	selected=
	for want in ${FUZZ_TARGETS//,/ }; do
		found=
		while read -r pkg name; do
			if [ "$want" = "$name" ] || [ "$want" = "$pkg.$name" ] || [[ "$pkg.$name" == */"$want" ]]; then
				selected+="$pkg $name"$'\n'
				found=1
			fi
		done <<<"$all"
		if [ -z "$found" ]; then
			echo "fuzz.sh: FUZZ_TARGETS: no target $want (scripts/fuzz.sh --list shows them)" >&2
			exit 2
		fi
	done
	selected=$(printf '%s' "$selected" | sort -u)
fi

if [ -n "$list" ]; then
	printf '%s\n' "$selected"
	exit 0
fi

ntargets=$(printf '%s\n' "$selected" | wc -l)
pkgs=$(printf '%s\n' "$selected" | cut -d' ' -f1 | sort -u)
npkgs=$(printf '%s\n' "$pkgs" | wc -l)
module=$(go list -m)
fuzzcache=$(go env GOCACHE)/fuzz

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

start=$SECONDS
budget_note=
if [ "$FUZZ_BUDGET" -gt 0 ]; then budget_note=", at most ${FUZZ_BUDGET}s in all"; fi
echo "fuzz: $ntargets targets in $npkgs packages, $FUZZ_TIME each$budget_note"

# Build: one instrumented test binary per package.
failed=()  # "pkg name" of each failed target (or "pkg (build)")
declare -A built
for pkg in $pkgs; do
	bin=$work/$(printf '%s' "$pkg" | tr / _).test
	t0=$SECONDS
	if go test -c -fuzz=. -o "$bin" "./$pkg" >"$work/build.log" 2>&1; then
		built[$pkg]=$bin
		printf 'fuzz: built %-28s %3ds\n' "$pkg" $((SECONDS - t0))
	else
		echo "fuzz: FAIL: building $pkg:"
		sed 's/^/    /' "$work/build.log"
		failed+=("$pkg (build)")
	fi
done
build_secs=$((SECONDS - start))

# slice prints the seconds the next target gets: FUZZ_TIME, or less when the
# budget left, shared among the targets left, is smaller (about 1s of each
# target's run goes to starting the workers and the baseline run of its corpus).
slice() {
	local left=$1 s=$fuzz_secs share
	if [ "$FUZZ_BUDGET" -gt 0 ]; then
		share=$(((FUZZ_BUDGET - (SECONDS - start)) / left - 1))
		[ "$share" -ge "$s" ] || s=$share
		[ "$s" -ge 1 ] || s=1
	fi
	echo "$s"
}

n=0
short=0
crashers=()
while read -r pkg name; do
	n=$((n + 1))
	bin=${built[$pkg]:-}
	[ -n "$bin" ] || continue
	t=$(slice $((ntargets - n + 1)))
	[ "$t" -ge "$fuzz_secs" ] || short=$((short + 1))
	log=$work/$(printf '%s' "$pkg" | tr / _).$name.log
	args=(-test.run='^$' -test.fuzz="^$name\$" -test.fuzztime="${t}s" -test.fuzzminimizetime="$minimize"
		-test.fuzzcachedir="$fuzzcache/$module/$pkg" -test.timeout="$((t + minimize_secs + 60))s" -test.paniconexit0)
	[ -z "$FUZZ_PARALLEL" ] || args+=(-test.parallel="$FUZZ_PARALLEL")
	t0=$SECONDS
	status=0
	(cd "$pkg" && "$bin" "${args[@]}") </dev/null >"$log" 2>&1 || status=$?
	took=$((SECONDS - t0))
	# The last progress line says how much was done:
	# "fuzz: elapsed: 4s, execs: 12345 (0/sec), new interesting: 5 (total: 20)".
	stats=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -n1 |
		sed -E 's/^fuzz: elapsed: [^,]*, execs: ([0-9]+) \([0-9]+\/sec\), new interesting: ([0-9]+).*/\1 execs, \2 new inputs/') || true
	if [ "$status" -eq 0 ] && [ -n "$stats" ]; then
		printf 'fuzz: ok   %-52s %3ds  %s\n' "$pkg $name" "$took" "$stats"
		continue
	fi
	# A short run on a busy machine can end (exit 0, PASS) before the
	# engine's first progress line (every 3 s): it fuzzed, found nothing,
	# and said nothing. A target that is not there says so instead.
	if [ "$status" -eq 0 ] && [ -z "$stats" ] && grep -q '^PASS' "$log" && ! grep -q 'no fuzz tests to fuzz' "$log"; then
		printf 'fuzz: ok   %-52s %3ds  (ended before its first progress line)\n' "$pkg $name" "$took"
		continue
	fi
	# Go's fuzzing engine sometimes ends a run that found nothing with
	# "context deadline exceeded" (its workers did not stop in time at the
	# end of -fuzztime): no input failed, so it is said, not failed on.
	if [ -n "$stats" ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"; then
		printf 'fuzz: ok   %-52s %3ds  %s (the engine stopped on its deadline, no input failed)\n' "$pkg $name" "$took" "$stats"
		continue
	fi
	failed+=("$pkg $name")
	printf 'fuzz: FAIL %-52s %3ds\n' "$pkg $name" "$took"
	input=$(sed -nE 's/^[[:space:]]*Failing input written to (.*)$/\1/p' "$log" | tail -n1)
	echo "    target: $name in ./$pkg"
	if [ -n "$input" ]; then
		crashers+=("$pkg/$input")
		echo "    input:  $pkg/$input"
		sed 's/^/        /' "$pkg/$input" | head -c 4000
		echo
	elif [ "$status" -eq 0 ]; then
		echo "    the target did not fuzz (no progress line): is it built with a tag, or renamed?"
	fi
	echo "    failure (exit $status):"
	grep -vE '^fuzz: elapsed: ' "$log" | head -n 80 | sed 's/^/        /'
	if [ -n "$input" ]; then
		echo "    re-run: go test -run='^$name\$/^$(basename "$input")\$' ./$pkg"
	fi
done <<<"$selected"

total=$((SECONDS - start))
echo "fuzz: $ntargets targets in ${total}s (build ${build_secs}s)"
if [ "$short" -gt 0 ]; then
	echo "fuzz: the ${FUZZ_BUDGET}s budget gave $short targets less than $FUZZ_TIME each (a cold build cache?)"
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo
	echo "fuzz: FAIL: ${#failed[@]} of $ntargets targets:"
	printf '    %s\n' "${failed[@]}"
	if [ ${#crashers[@]} -gt 0 ]; then
		echo "fuzz: new crashers (Go wrote them into the package's testdata/fuzz):"
		printf '    %s\n' "${crashers[@]}"
		echo "fuzz: commit each as a seed (it then runs in every go test) and fix the bug."
	fi
	exit 1
fi
