#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Puts the kselftest harness next to the collection, so that every
# kselftest command works in this sparse tree as in a kernel tree:
#
#   tools/testing/selftests/{Makefile,lib.mk,kselftest.h,...}
#   scripts/subarch.include
#
# From KSRC=<kernel tree> when given, else from Debian's linux-source
# tarball (extracted once into a cache). Nothing it writes is committed.
#
# The kernel's KTAP parser (tools/testing/kunit/kunit_parser.py and the
# kunit_*.py it imports) goes from the same source into $cache/kunit/, for
# the test that parses the battery's output as the kernel's tools do.
set -eu

# The tree this script is in, as its desk's tools
desk=tools/testing/sched-workloads
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/"$desk"}
if [ "$top" = "$here" ]; then
	echo "ksft-harness: $here is not a kernel tree's $desk" >&2
	exit 1
fi
cache=${SW_HARNESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sched-workloads/harness}

files="tools/testing/selftests/Makefile
tools/testing/selftests/lib.mk
tools/testing/selftests/kselftest.h
tools/testing/selftests/kselftest_harness.h
tools/testing/selftests/kselftest_install.sh
tools/testing/selftests/run_kselftest.sh
tools/testing/selftests/kselftest/runner.sh
tools/testing/selftests/kselftest/prefix.pl
tools/testing/selftests/kselftest/module.sh
scripts/subarch.include"

# Also wanted when present (newer kernels): not an error when absent.
optional="tools/testing/selftests/kselftest/ktap_helpers.sh
tools/testing/selftests/kselftest_deps.sh"

kunit=tools/testing/kunit

# kunit_parser.py and the kunit_*.py modules it imports, from $1/$kunit.
install_kunit() {
	src=$1/$kunit
	if [ ! -f "$src/kunit_parser.py" ]; then
		echo "ksft-harness: $1 has no $kunit/kunit_parser.py: the KTAP parser test will skip" >&2
		return 0
	fi
	# the same already: leave it, another checkout may be reading it
	cmp -s "$src/kunit_parser.py" "$cache/kunit/kunit_parser.py" && return 0
	rm -rf "$cache/kunit"
	mkdir -p "$cache/kunit"
	todo=kunit_parser
	while [ -n "$todo" ]; do
		next=
		# shellcheck disable=SC2086 # one module per word
		for m in $todo; do
			[ -f "$cache/kunit/$m.py" ] && continue
			[ -f "$src/$m.py" ] || continue	# not a module beside it
			cp -p "$src/$m.py" "$cache/kunit/"
			next="$next $(sed -n -e 's/^from \(kunit_[a-z_]*\) import.*/\1/p' \
				-e 's/^import \(kunit_[a-z_]*\).*/\1/p' "$src/$m.py")"
		done
		# no more imports: done
		todo=$(printf '%s' "$next" | tr -d ' \n')
		if [ -n "$todo" ]; then
			todo=$next
		fi
	done
}

install_from() {
	src=$1
	for f in $files; do
		if [ ! -f "$src/$f" ]; then
			echo "ksft-harness: $src has no $f: not a kernel tree?" >&2
			exit 1
		fi
	done
	for f in $files $optional; do
		[ -f "$src/$f" ] || continue
		mkdir -p "$top/$(dirname "$f")"
		cp -p "$src/$f" "$top/$f"
	done
	echo "ksft-harness: kselftest harness from $src"
}

if [ -n "${KSRC:-}" ]; then
	install_from "$(cd "$KSRC" && pwd)"
	install_kunit "$(cd "$KSRC" && pwd)"
	exit 0
fi

tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' 2>/dev/null |
	sort -V | tail -n 1)
if [ -z "$tarball" ]; then
	echo "ksft-harness: no kernel tree: set KSRC=<kernel tree> or install" >&2
	echo "  Debian's linux-source package (apt-get install linux-source)" >&2
	exit 1
fi
ver=$(basename "$tarball" .tar.xz)
if [ ! -f "$cache/$ver/.complete" ]; then
	rm -rf "${cache:?}/$ver"
	mkdir -p "$cache/$ver"
	echo "ksft-harness: extracting the harness from $tarball (once)"
	# shellcheck disable=SC2046 # one member per word
	tar -xJf "$tarball" -C "$cache/$ver" --strip-components=1 \
		$(for f in $files; do printf '%s/%s ' "$ver" "$f"; done) \
		"$ver/tools/testing/selftests/kselftest_deps.sh" \
		"$ver/scripts/checkpatch.pl" "$ver/scripts/spelling.txt" \
		"$ver/scripts/const_structs.checkpatch"
	touch "$cache/$ver/.complete"
fi
# A cache from before the KTAP parser was wanted: add it (once).
if [ ! -f "$cache/$ver/.kunit-complete" ]; then
	echo "ksft-harness: extracting the KTAP parser from $tarball (once)"
	tar -xJf "$tarball" -C "$cache/$ver" --strip-components=1 \
		--wildcards "$ver/$kunit/kunit_*.py"
	touch "$cache/$ver/.kunit-complete"
fi
install_from "$cache/$ver"
install_kunit "$cache/$ver"
