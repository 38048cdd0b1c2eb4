#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sched-workloads-lab.sh: the battery as a test lab runs it (LAVA, tuxrun,
# any job that boots the kernel under test and runs a command in it).
#
#   sched-workloads-lab.sh [--tarball FILE|URL | --installed DIR]
#                          [--out DIR] [--origin NAME] [--build-id ID]
#                          [--log-url URL] [--results RESULTS]
#
# Takes the collection from a kselftest tarball ("make -C
# tools/testing/selftests TARGETS=sched-workloads gen_tar"), unpacked
# into --out, or from an installed kselftest tree (default: the tree this
# script sits in); runs it with run_kselftest.sh, keeping the KTAP in
# OUT/ktap.txt; exports the run as KCIDB I/O JSON into OUT/kcidb.json
# ("sched-workloads export --kcidb", with the lab's origin and build id
# when given: --tests-only then, the lab sent the build); and, under
# LAVA, reports every result line with lava-test-case.
#
# --results RESULTS skips the run and exports a result directory of an
# earlier one (a lab re-sending, or a check of this script).
#
# Exit: 1 when the collection's KTAP line is "not ok" or the export
# failed, 0 otherwise; 2 usage.
set -u

usage() {
	sed -n 's/^#   //p' "$0" >&2
	exit 2
}

tarball='' installed='' out=./sched-workloads-lab origin='' build_id=''
log_url='' results=''
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--tarball)	tarball=$2 ;;
	--installed)	installed=$2 ;;
	--out)		out=$2 ;;
	--origin)	origin=$2 ;;
	--build-id)	build_id=$2 ;;
	--log-url)	log_url=$2 ;;
	--results)	results=$2 ;;
	*)		usage ;;
	esac
	shift 2
done
[ -n "$tarball" ] && [ -n "$installed" ] && usage

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
if [ -n "$tarball" ]; then
	case $tarball in
	http://*|https://*)
		wget -q -O "$out/kselftest.tar" "$tarball" ||
			curl -sfL -o "$out/kselftest.tar" "$tarball" || {
			echo "lab: cannot fetch $tarball (wget or curl)" >&2
			exit 2
		}
		tarball=$out/kselftest.tar ;;
	esac
	mkdir -p "$out/kselftest" &&
		tar -xf "$tarball" -C "$out/kselftest" || exit 2
	installed=$out/kselftest
	# gen_tar's tarball holds the tree itself, or a kselftest/ in it
	[ -x "$installed/run_kselftest.sh" ] || installed=$installed/kselftest
fi
[ -n "$installed" ] || installed=$(cd "$(dirname "$0")/../.." && pwd)
bin=$installed/sched-workloads/sched-workloads
if [ ! -x "$bin" ]; then
	echo "lab: no $bin: not a kselftest tree with sched-workloads" >&2
	exit 2
fi

rc=0
if [ -z "$results" ]; then
	# Piped, not redirected: the runner reopens /dev/stdout. It exits 0
	# even when a test failed (6.1): its own result line says.
	(cd "$installed" && ./run_kselftest.sh -c sched-workloads) 2>&1 |
		tee "$out/ktap.txt"
	grep -q '^not ok' "$out/ktap.txt" && rc=1
	# the results directory goes where the KTAP says (# results: DIR)
	results=$(sed -n 's/^.*# results: //p' "$out/ktap.txt" | head -n 1)
	case $results in
	/*)	;;
	?*)	results=$installed/sched-workloads/$results ;;
	esac
fi

if [ -n "$results" ]; then
	set -- --kcidb -o "$out/kcidb.json"
	[ -n "$origin" ] && set -- "$@" --origin "$origin"
	[ -n "$build_id" ] && set -- "$@" --build-id "$build_id" --tests-only
	[ -n "$log_url" ] && set -- "$@" --log-url "$log_url"
	if "$bin" export "$@" "$results"; then
		echo "lab: KCIDB I/O JSON in $out/kcidb.json"
	else
		echo "lab: export of $results failed" >&2
		[ "$rc" -ne 0 ] || rc=1
	fi
else
	echo "lab: the run named no results directory: nothing to export" >&2
	[ "$rc" -ne 0 ] || rc=1
fi

# LAVA: one test case per nested KTAP result (the checks' names are
# unique and without spaces), but not kselftest's line of the collection
if command -v lava-test-case >/dev/null 2>&1 && [ -f "$out/ktap.txt" ]; then
	sed -n -e 's/^[# ]*not ok [0-9]* \([^ ]*\)\( # \([A-Z]*\)\)\{0,1\}.*$/fail \1 \3/p' \
		-e 's/^[# ]*ok [0-9]* \([^ ]*\)\( # \([A-Z]*\)\)\{0,1\}.*$/pass \1 \3/p' \
		"$out/ktap.txt" | while read -r result name directive; do
		# kselftest's own line names the collection, not a check
		case $name in *:) continue ;; esac
		[ "$directive" = SKIP ] && result=skip
		lava-test-case "$name" --result "$result"
	done
fi
exit "$rc"
