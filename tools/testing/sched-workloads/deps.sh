#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh run|test: the Debian packages a profile needs.
#
#   run   build the collection and run the battery (make run)
#   test  run's, plus what the test command needs (make test, make fuzz)
#
# As root, installs the missing ones with apt-get and says which. Else
# prints what is missing and the command that installs it, and exits 1.
# A kernel tree given as KSRC= replaces the linux-source package (it is
# where the kselftest harness and checkpatch come from).
#
# tracefs is not mounted here: the tool mounts it itself (libtracefs does
# when /sys/kernel/tracing is not mounted yet), and must, since kselftest
# runs it without this script.
set -eu

usage() {
	echo "usage: $0 run|test" >&2
	exit 2
}

[ $# -eq 1 ] || usage

# Every package named, none left to another's Recommends (deps.sh
# installs with --no-install-recommends, as a lab's image is built):
# perl runs kselftest's prefix.pl and checkpatch, rsync its install,
# xz-utils unpacks linux-source.
run_pkgs="gcc libc6-dev make pkg-config libjson-c-dev libtracefs-dev"
run_pkgs="$run_pkgs libtracecmd-dev libtraceevent-dev libzstd-dev rt-app"
run_pkgs="$run_pkgs rsync xz-utils perl"
# The kselftest harness (and checkpatch) come from this one's tarball.
if [ -z "${KSRC:-}" ]; then
	run_pkgs="$run_pkgs ${SW_LINUX_SOURCE_PKG:-linux-source-6.1}"
fi

case $1 in
run)	pkgs=$run_pkgs ;;
# procps: pgrep, for the rt-app a test must not leave running; git: the
# contribute tests (it prints what to "git add"); trace-cmd: the tests
# read the saved traces with trace-cmd report too; clang and its
# libFuzzer runtime: the fuzz harnesses, whose corpora the tests replay
# under ASan and UBSan (make fuzz too), and llvm for llvm-symbolizer,
# without which LeakSanitizer cannot match the suppressions of
# fuzz/lsan.supp (function names) and fails on the libraries' leaks;
# rt-tests (cyclictest) and stress-ng: real programs the synthesizer's
# fidelity is tested on; python3-matplotlib draws the report, which
# chromium (driven through chromium-driver and python3-selenium) opens in
# the tests; python3-jsonschema checks the KCIDB export against its
# schema; qemu-system-x86 and busybox-static: "sched-workloads vm" boots
# a Debian kernel package (downloaded by the test, not installed) with
# them; qemu-system-arm, gcc-aarch64-linux-gnu and libc6-dev-arm64-cross
# (the C library's cross headers, only a Recommends of the cross
# compiler): its deterministic mode, an arm64 guest whose userspace is
# Debian's arm64 packages, downloaded (apt needs the arm64 architecture
# for that) and never installed, and device-tree-compiler (fdtget,
# fdtput: the arm64 guest's device tree given the cache its cores share,
# vm_dtb.py); python3-sphinx (and with it
# python3-docutils): the documentation's directory built with
# sphinx-build -W, as the kernel's "make htmldocs" builds it, without a
# warning (tests/test_docs.py); flex, bison, bc, patch and ccache:
# "sched-workloads kbuild" builds linux-source-6.1 for the guest (kconfig
# needs flex and bison, the headers bc; patch applies a mutant to its
# copy of the tree; ccache keeps later builds incremental), and its
# tests boot the result; libelf-dev: objtool, which an x86_64 kernel
# builds, reads objects with it (the tests build for the host's arch)
test)	pkgs="$run_pkgs python3 procps git shellcheck flake8 trace-cmd clang"
	pkgs="$pkgs libclang-rt-14-dev llvm rt-tests stress-ng"
	pkgs="$pkgs python3-matplotlib chromium chromium-driver"
	pkgs="$pkgs python3-selenium python3-jsonschema python3-sphinx"
	pkgs="$pkgs qemu-system-x86 busybox-static"
	pkgs="$pkgs qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
	pkgs="$pkgs device-tree-compiler"
	pkgs="$pkgs flex bison bc patch ccache libelf-dev"
	foreign_arch=arm64 ;;
*)	usage ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: not a Debian system; make sure these (or their" \
		"equivalents) are installed:" >&2
	echo "  $pkgs" >&2
	exit 0
fi

installed() {
	case $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) in
	*" ok installed") return 0 ;;
	*) return 1 ;;
	esac
}

missing=
for p in $pkgs; do
	installed "$p" || missing="$missing $p"
done
missing=${missing# }
add_arch=
if [ -n "${foreign_arch:-}" ] &&
   ! dpkg --print-foreign-architectures | grep -qx "$foreign_arch"; then
	add_arch=$foreign_arch
fi

if [ -z "$missing" ] && [ -z "$add_arch" ]; then
	echo "deps: $1: all installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	[ -z "$missing" ] ||
		echo "deps: $1: missing packages: $missing" >&2
	[ -z "$add_arch" ] ||
		echo "deps: $1: apt cannot download $add_arch packages" >&2
	echo "deps: as root:" >&2
	[ -z "$add_arch" ] ||
		echo "  dpkg --add-architecture $add_arch && apt-get update" >&2
	[ -z "$missing" ] ||
		echo "  apt-get install --no-install-recommends $missing" >&2
	exit 1
fi

if [ -n "$add_arch" ]; then
	echo "deps: $1: adding the $add_arch architecture to dpkg (its" \
		"packages are downloaded, not installed)"
	dpkg --add-architecture "$add_arch"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
if [ -z "$missing" ]; then
	exit 0
fi
echo "deps: $1: installing: $missing"
# shellcheck disable=SC2086 # one package per word
apt-get install -y --no-install-recommends $missing </dev/null
