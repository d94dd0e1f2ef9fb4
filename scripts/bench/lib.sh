# Shared by the benchmark sections (sourced from the repository's top, after
# CASES is set): a work folder removed at exit with the processes started in
# pids, and small helpers.
work=$(mktemp -d)
BIN=${BIN:-$work/bin}
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

say() { printf 'bench: %s\n' "$*" >&2; }
has_case() { [[ " $CASES " == *" $1 "* ]]; }
has_scrapy() { /usr/bin/python3 -c 'import scrapy' >/dev/null 2>&1; }
