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
