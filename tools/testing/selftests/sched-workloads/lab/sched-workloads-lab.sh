#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sched-workloads-lab.sh: the battery as a test lab runs it (a LAVA test
# definition, a tuxrun command, any job that boots the kernel under test
# and runs a command in it).
#
#   sched-workloads-lab.sh [--tarball FILE|URL | --installed DIR] [--out DIR]
#       [--origin NAME] [--checkout-id ID] [--build-id ID] [--run-id ID]
#       [--log-url URL] [--results RESULTS]
#
# Takes the collection from a kselftest tarball ("make -C
# tools/testing/selftests TARGETS=sched-workloads gen_tar"), unpacked
# into OUT/kselftest, or from an installed kselftest tree (default: the
# one this script is installed in); runs it with run_kselftest.sh, the
# KTAP kept in OUT/ktap.txt; exports the run as KCIDB I/O JSON into
# OUT/kcidb.json ("sched-workloads export --kcidb", with the lab's
# origin and ids when given: --tests-only with a build id, the lab sent
# the build); and under LAVA (lava-test-case in PATH) reports every test
# of the export as a test case, with its value and unit as measurement,
# and the export itself as the case "kcidb-export".
#
# --results RESULTS exports the result directory of an earlier run
# instead of running the battery (a lab sending again, a check of this
# script). Needs on the device what the battery needs (rt-app, json-c,
# libtracefs, libtracecmd, libtraceevent, libzstd; see "deps.sh run")
# and python3; wget or curl for a tarball given as a URL.
#
# Exit: 1 when a check failed (the KTAP says "not ok", or the export's
# run test is FAIL or ERROR) or there is nothing to export; 2 usage, or
# no collection to run; 0 otherwise.
set -u

usage() {
	sed -n 's/^#   //p' "$0" >&2
	exit 2
}

tarball='' installed='' out=./sched-workloads-lab results=''
origin='' checkout_id='' build_id='' run_id='' log_url=''
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--tarball)	tarball=$2 ;;
	--installed)	installed=$2 ;;
	--out)		out=$2 ;;
	--results)	results=$2 ;;
	--origin)	origin=$2 ;;
	--checkout-id)	checkout_id=$2 ;;
	--build-id)	build_id=$2 ;;
	--run-id)	run_id=$2 ;;
	--log-url)	log_url=$2 ;;
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
		name=$out/${tarball##*/}
		wget -q -O "$name" "$tarball" ||
			curl -sfL -o "$name" "$tarball" || {
			echo "lab: cannot fetch $tarball (with wget or curl)" >&2
			exit 2
		}
		tarball=$name ;;
	esac
	# tar picks the decompressor (gen_tar's FORMAT: .gz, .xz, .zst...)
	mkdir -p "$out/kselftest" &&
		tar -xf "$tarball" -C "$out/kselftest" || exit 2
	installed=$out/kselftest
fi
[ -n "$installed" ] || installed=$(cd "$(dirname "$0")/../.." && pwd)
bin=$installed/sched-workloads/sched-workloads
if [ ! -x "$bin" ]; then
	echo "lab: no $bin: not a kselftest tree with sched-workloads" >&2
	exit 2
fi

rc=0
if [ -z "$results" ]; then
	# Piped, not redirected: the runner reopens /dev/stdout. Its exit
	# status does not say whether a test failed: its KTAP line does.
	(cd "$installed" && ./run_kselftest.sh -c sched-workloads) 2>&1 |
		tee "$out/ktap.txt"
	grep -q '^not ok' "$out/ktap.txt" && rc=1
	# the tool names its result directory in the KTAP: "# results: DIR"
	results=$(sed -n 's/^.*# results: //p' "$out/ktap.txt" | head -n 1)
	if [ -z "$results" ]; then
		echo "lab: the run named no result directory: nothing to export" >&2
		exit 1
	fi
fi

set -- --kcidb -o "$out/kcidb.json"
[ -n "$origin" ] && set -- "$@" --origin "$origin"
[ -n "$checkout_id" ] && set -- "$@" --checkout-id "$checkout_id"
[ -n "$build_id" ] && set -- "$@" --build-id "$build_id" --tests-only
[ -n "$run_id" ] && set -- "$@" --run-id "$run_id"
[ -n "$log_url" ] && set -- "$@" --log-url "$log_url"
if "$bin" export "$@" "$results"; then
	exported=pass
	echo "lab: KCIDB I/O JSON in $out/kcidb.json"
else
	exported=fail
	rc=1
	echo "lab: export of $results failed" >&2
fi

# One line per test of the export: name (its path below sched-workloads),
# LAVA result, and the value and unit when it has a number.
cases=$out/cases.txt
: > "$cases"
if [ "$exported" = pass ]; then
	python3 - "$out/kcidb.json" > "$cases" <<'EOF' || { exported=fail; rc=1; }
import json
import re
import sys

RESULT = {"PASS": "pass", "DONE": "pass", "FAIL": "fail", "ERROR": "fail",
          "SKIP": "skip", "MISS": "unknown"}
with open(sys.argv[1]) as f:
    doc = json.load(f)
for t in doc.get("tests", []):
    name = t["path"].split(".", 1)[1] if "." in t["path"] else t["path"]
    line = [name, RESULT.get(t.get("status"), "unknown")]
    if "number" in t:
        unit = re.sub(r"\s", "_", t["number"].get("unit", "")) or "none"
        line += [repr(t["number"]["value"]), unit]
    print(" ".join(line))
EOF
fi
grep -q '^sched-workloads fail' "$cases" && rc=1

if command -v lava-test-case >/dev/null 2>&1; then
	while read -r name result measurement units; do
		if [ -n "$measurement" ]; then
			lava-test-case "$name" --result "$result" \
				--measurement "$measurement" --units "$units"
		else
			lava-test-case "$name" --result "$result"
		fi
	done < "$cases"
	lava-test-case kcidb-export --result "$exported"
fi
exit "$rc"
