// SPDX-License-Identifier: GPL-2.0
/*
 * vm_pace: the guest side of the judging guest's pace (vm.py --pace).
 *
 *   vm_pace PERIOD_US CPU...
 *
 * Under TCG with icount, QEMU runs one vCPU at a time, each until the
 * machine's next virtual timer deadline: with no timer due soon, one
 * vCPU runs milliseconds while the others wait, and a wakeup sent across
 * CPUs waits with them. A timer that expires every PERIOD_US bounds every
 * turn by it. This opens a cpu-clock perf event on each CPU given, which
 * the kernel drives with an hrtimer of that period, and sleeps until it
 * is killed: no task of it runs in between, and the events have no ring
 * buffer, so an expiry costs the timer interrupt and the perf overflow
 * handler only.
 *
 * Prints "pace: N CPUs every P us" once the events are open; exits 1
 * with the reason when one cannot be.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long parse_long(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	return v;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	long period_us, cpu;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: vm_pace PERIOD_US CPU...\n");
		return 2;
	}
	period_us = parse_long(argv[1], 1, 1000000);
	if (period_us < 0) {
		fprintf(stderr, "vm_pace: %s: not a period in us (1-1000000)\n",
			argv[1]);
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = period_us * 1000;
	attr.pinned = 1;
	for (i = 2; i < argc; i++) {
		cpu = parse_long(argv[i], 0, 8191);
		if (cpu < 0) {
			fprintf(stderr, "vm_pace: %s: not a CPU number\n",
				argv[i]);
			return 2;
		}
		/* the descriptor stays open until the process ends */
		if (syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1,
			    0) < 0) {
			fprintf(stderr, "vm_pace: cpu%ld: perf_event_open: %s\n",
				cpu, strerror(errno));
			return 1;
		}
	}
	printf("pace: %d CPUs every %ld us\n", argc - 2, period_us);
	fflush(stdout);
	for (;;)
		pause();
}
