#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh-machine.sh [-k] [-o LOGDIR] [COMMAND...]
#
# The README's two commands on a machine that never saw the project: a
# minimal Debian root (debootstrap --variant=minbase, from the mirror apt
# uses here), with the host's /proc, /sys (tracefs, cgroups) and /dev
# bound in, a fresh clone of the current commit in /root/sched-workloads,
# and each COMMAND (default: "make run" then "make test") run there as
# root, with no stdin and a clean environment. It prints what deps.sh
# installed, each command's exit and time, and the tests that failed.
#
#   -k         keep the root (its path is printed) instead of removing it
#   -o LOGDIR  where the logs go (default /var/tmp/sched-workloads-fresh/
#              <date>); they outlive the root
#
# Only "make" is added to the root beyond minbase: the README's commands
# need it before they can install anything; everything else is theirs to
# install. The root shares the host's kernel, so the battery and the live
# tests inside measure this machine: the script holds the host's live lock
# (/tmp/sched-workloads-live.lock) meanwhile, as a battery does, so that no
# run on the host overlaps. Nothing stays mounted or running after it
# exits, Ctrl-C included. Needs root and debootstrap (installed when
# missing). Exit: 0 when every command passed, 1 when one failed, 2 usage,
# 4 when it cannot run here.
set -u

usage() {
	sed -n 's/^# \{0,1\}//; 4,25p' "$0" >&2
	exit 2
}

keep=0
logs=
while getopts "ko:h" opt; do
	case $opt in
	k) keep=1 ;;
	o) logs=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "make run" "make test"

skip() {
	echo "fresh-machine: SKIP: $*" >&2
	exit 4
}

[ "$(id -u)" -eq 0 ] || skip "needs root (chroot, mounts)"
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel 2>/dev/null) ||
	skip "not in a git checkout of sched-workloads"
commit=$(git -C "$top" rev-parse HEAD)

# The first "deb" source of the host's codename, in either format of
# apt's sources: a one-line .list entry or a deb822 .sources stanza.
mirror_of() {
	codename=$1
	shift
	awk -v want="$codename" '
		function check() {
			if (!found && types ~ /(^|[ \t])deb([ \t]|$)/ &&
			    uri != "" && (" " suites " ") ~ (" " want " "))
				found = uri
			types = uri = suites = ""
		}
		FNR == 1 { check() }
		FILENAME ~ /\.list$/ && $1 == "deb" {
			i = 2
			if ($i ~ /^\[/)
				while (i < NF && $i !~ /\]$/)
					i++
			if ($i ~ /\]$/)
				i++
			types = "deb"; uri = $i; suites = $(i + 1)
			check()
			next
		}
		FILENAME ~ /\.sources$/ {
			if (NF == 0)
				check()
			else if ($1 == "Types:")
				types = $0
			else if ($1 == "URIs:")
				uri = $2
			else if ($1 == "Suites:")
				suites = $0
		}
		END { check(); if (found) print found }' "$@" 2>/dev/null
}

# shellcheck disable=SC1091 # the host's, read at run time
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || skip "no VERSION_CODENAME in /etc/os-release"
sources=$(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null)
# shellcheck disable=SC2086 # one file per word
mirror=$(mirror_of "$codename" $sources)
[ -n "$mirror" ] || skip "no deb source for $codename in apt's sources"

if ! command -v debootstrap >/dev/null 2>&1; then
	echo "fresh-machine: installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends debootstrap </dev/null >/dev/null ||
		skip "debootstrap could not be installed"
fi

stamp=$(date +%Y%m%d-%H%M%S)
logs=${logs:-/var/tmp/sched-workloads-fresh/$stamp}
mkdir -p "$logs" || skip "cannot create $logs"
root=$(mktemp -d /var/tmp/sched-workloads-root.XXXXXX) ||
	skip "cannot create a root under /var/tmp"
# a root directory everyone may enter, as a machine's / is: the tests
# run the binary as nobody too
chmod 755 "$root"

mounted=
# Every process whose root is the new root: what the commands left.
root_pids() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] &&
			echo "${p#/proc/}"
	done
}

# shellcheck disable=SC2317 # called from the traps
cleanup() {
	trap - EXIT INT TERM HUP
	pids=$(root_pids)
	if [ -n "$pids" ]; then
		echo "fresh-machine: stopping what is left in the root: $(echo "$pids" | tr '\n' ' ')"
		# shellcheck disable=SC2086 # one pid per word
		kill -TERM $pids 2>/dev/null
		sleep 2
		pids=$(root_pids)
		# shellcheck disable=SC2086
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
	fi
	# the deepest first; rslave mounts: nothing propagates to the host
	for m in $mounted; do
		umount -R "$root/$m" 2>/dev/null || umount -R -l "$root/$m"
	done
	if grep -q " ${root}[/ ]" /proc/self/mounts; then
		echo "fresh-machine: still mounted under $root: kept" >&2
	elif [ "$keep" -eq 1 ]; then
		echo "fresh-machine: root kept: $root"
	else
		rm -rf --one-file-system "$root"
	fi
}
trap cleanup EXIT
trap 'echo "fresh-machine: interrupted" >&2; exit 130' INT TERM HUP

t0=$(date +%s)
echo "fresh-machine: debootstrap $codename (minbase) from $mirror into $root"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
kr=
[ -f "$keyring" ] && kr="--keyring=$keyring"
# shellcheck disable=SC2086 # empty or one option
if ! debootstrap --variant=minbase --include=make $kr "$codename" "$root" \
	"$mirror" >"$logs/debootstrap.log" 2>&1; then
	tail -n 5 "$logs/debootstrap.log" >&2
	skip "debootstrap failed (log: $logs/debootstrap.log)"
fi
echo "fresh-machine: root made in $(($(date +%s) - t0)) s"

# apt as the host has it: its sources (security updates, the kernels the
# tests download) and settings; DNS, and the hosts file debootstrap does
# not write (without "localhost" the tests cannot reach chromedriver).
cp -p /etc/resolv.conf "$root/etc/resolv.conf"
cp -p /etc/hosts "$root/etc/hosts"
rm -f "$root/etc/apt/sources.list"
mkdir -p "$root/etc/apt/sources.list.d" "$root/etc/apt/apt.conf.d"
# shellcheck disable=SC2086
for f in $sources; do
	case $f in
	*/sources.list) cp -p "$f" "$root/etc/apt/sources.list" ;;
	*) cp -p "$f" "$root/etc/apt/sources.list.d/" ;;
	esac
done
cp -p /etc/apt/apt.conf.d/* "$root/etc/apt/apt.conf.d/" 2>/dev/null
[ -d /etc/apt/keyrings ] && cp -rp /etc/apt/keyrings "$root/etc/apt/"

mount -t proc proc "$root/proc" && mounted="proc $mounted"
for m in sys dev; do
	mount --rbind "/$m" "$root/$m" && mount --make-rslave "$root/$m" &&
		mounted="$m $mounted"
done

git clone -q --no-hardlinks "$top" "$root/root/sched-workloads" ||
	skip "cannot clone $top"
git -C "$root/root/sched-workloads" checkout -q "$commit"
echo "fresh-machine: commit $commit"

# Another run on the host would disturb the battery inside, and it this.
exec 9>/tmp/sched-workloads-live.lock
if ! flock -n 9; then
	echo "fresh-machine: waiting for another sched-workloads run"
	flock 9
fi

failed=0
n=0
for cmd in "$@"; do
	n=$((n + 1))
	log="$logs/$n-$(echo "$cmd" | tr -c 'a-zA-Z0-9\n' '-').log"
	t=$(date +%s)
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		sh -c "cd /root/sched-workloads && $cmd" </dev/null >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t))
	echo "fresh-machine: \"$cmd\": exit $rc in $secs s (log: $log)"
	sed -n 's/^deps: \(.*\): installing: /  deps.sh \1 installed: /p' "$log"
	if grep -qE '^[0-9]+ passed, [0-9]+ failed' "$log"; then
		# the tests' runner: its count, and each test that failed
		grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | sed 's/^/  /'
		grep -E ' \.\.\. (FAIL|ERROR)$' "$log" | sed 's/^/  failed: /'
	else
		# a battery: its totals, and each workload that did not pass
		grep -E '^# Totals' "$log" | tail -n 1 | sed 's/^/  /'
		grep -E '^not ok [0-9]+ ' "$log" | sed 's/^/  /'
	fi
	left=$(root_pids)
	[ -z "$left" ] || echo "  left running: $left"
	[ "$rc" -eq 0 ] || failed=1
done
echo "fresh-machine: $(($(date +%s) - t0)) s in all"
exit "$failed"
