#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# /init of the guest "sched-workloads vm" boots: mounts what the battery
# needs, loads the modules of the results disk, runs the battery with
# the arguments the host wrote into /etc/sw/args (one a line), writes
# /results to the results disk as a tar stream and powers off. Nothing
# is printed on the console during the run: a console write can wait on
# the host, which a deterministic run must not. The host reads the exit
# status from the last line, SW_VM_EXIT=<status>.

/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp /run /results /sys/fs/cgroup
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /results
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo SW_VM_BOOTED

# vm --debug: what the guest does, on the console, for a guest that
# hangs (the host prints the console's tail); never in a measured run
step() {
	[ -e /etc/sw/debug ] && echo "sw-vm: $*"
	return 0
}
if [ -e /etc/sw/debug ]; then
	while sleep 10; do
		echo "sw-vm: up $(cut -d' ' -f1 /proc/uptime) s, load $(cut -d' ' -f1-4 /proc/loadavg)"
		top -b -n 1 | head -n 14
		tail -n 2 /results/vm/stderr.txt 2>/dev/null
	done &
fi

status=0

# the machine as the guest sees it, before the run
mkdir -p /results/vm
cat /proc/cpuinfo > /results/vm/cpuinfo.txt
uname -a > /results/vm/uname.txt
for d in /sys/kernel/debug/sched/domains/cpu*/domain*; do
	[ -r "$d/name" ] || continue
	cpu=${d%/*}
	echo "${cpu##*/} ${d##*/} $(cat "$d/name") $(cat "$d/flags" 2>/dev/null)"
done > /results/vm/domains.txt
# what the domains are built from: the CPUs' topology and which CPUs
# share each cache (the last level's sharers are the MC level's span)
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	cpu=${c##*/}
	echo "$cpu package $(cat "$c/topology/package_cpus_list" 2>/dev/null)" \
		"cluster $(cat "$c/topology/cluster_cpus_list" 2>/dev/null)" \
		"core $(cat "$c/topology/core_cpus_list" 2>/dev/null)"
	for i in "$c"/cache/index*; do
		[ -r "$i/level" ] || continue
		echo "$cpu cache L$(cat "$i/level") $(cat "$i/type")" \
			"shared $(cat "$i/shared_cpu_list")"
	done
done > /results/vm/topology.txt

step "the machine read"
# The pace: a timer on every CPU that bounds each vCPU's turn
# (vm_pace.c), from before the calibration, which must count its cost.
if [ -e /etc/sw/pace ]; then
	# shellcheck disable=SC2046 # the period, then the CPUs
	/opt/sw/vm_pace $(cat /etc/sw/pace) > /results/vm/pace.txt 2>&1 &
	sleep 1
	if ! grep -q '^pace: ' /results/vm/pace.txt; then
		echo "sw-vm: no pace: $(cat /results/vm/pace.txt)"
		status=1
	fi
fi

# rt-app's own calibration, in the guest: the host's ns per loop means
# nothing under emulation. Under icount it is the same every boot.
calibration=
if [ $status -eq 0 ] && [ -e /etc/sw/calibrate ]; then
	cat > /tmp/calibrate.json <<-EOF
	{"global": {"calibration": "CPU0", "duration": 1, "logdir": "/tmp"},
	 "tasks": {"calibrate": {"loop": 1, "run": 1000}}}
	EOF
	step "calibrating rt-app"
	rt-app /tmp/calibrate.json > /results/vm/calibration.txt 2>&1
	calibration=$(sed -n 's/.*pLoad = \([0-9]*\)ns.*/\1/p' \
		/results/vm/calibration.txt)
	if [ -z "$calibration" ]; then
		echo "sw-vm: rt-app did not calibrate: $(tail -n 3 /results/vm/calibration.txt)"
		status=1
	fi
fi

export SCHED_WORKLOADS_VM
SCHED_WORKLOADS_VM=$(cat /etc/sw/vm)
# what made this guest, recorded in its fingerprint (and baselines)
if [ -e /etc/sw/made-by.json ]; then
	export SCHED_WORKLOADS_MADE_BY=/etc/sw/made-by.json
fi
if [ $status -eq 0 ]; then
	set --
	while read -r arg; do
		set -- "$@" "$arg"
		# after the subcommand
		if [ $# -eq 1 ] && [ -n "$calibration" ]; then
			set -- "$@" -c "$calibration"
		fi
	done < /etc/sw/args
	step "sched-workloads $*"
	/opt/sw/sched-workloads "$@" > /results/vm/ktap.txt \
		2> /results/vm/stderr.txt < /dev/null
	status=$?
	step "sched-workloads exited with $status"
fi

# The results disk's drivers only now: its probe reads the disk, and
# the host's I/O completes in host time, which icount does not count.
while read -r mod; do
	[ -n "$mod" ] || continue
	if ! insmod "/lib/modules/$mod" 2>/tmp/insmod.err; then
		echo "sw-vm: cannot load $mod: $(cat /tmp/insmod.err)"
		status=1
	fi
done < /etc/sw/modules
# the disk appears asynchronously
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -b /dev/vda ] && break
	sleep 1
done
if [ -b /dev/vda ]; then
	step "writing the results"
	tar -cf /dev/vda -C /results . || status=1
	sync
else
	echo "sw-vm: no results disk (/dev/vda)"
	status=1
fi
echo "SW_VM_EXIT=$status"
poweroff -f
