// SPDX-License-Identifier: GPL-2.0
/*
 * rt_neighbour: another user's real-time thread, for the live tests. It
 * runs RUN_US of every PERIOD_US (a busy loop on the clock, absolute
 * periods; RUN_US = PERIOD_US: all the time) at SCHED_FIFO PRIO, on CPU
 * if given, for SECONDS or until a signal, and says "ready" on stdout
 * once it runs so.
 *
 *   rt_neighbour PRIO RUN_US PERIOD_US SECONDS [CPU]
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSEC_PER_USEC	1000ull
#define NSEC_PER_SEC	1000000000ull

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	unsigned long long run, period, end, next;
	struct timespec ts;

	if (argc != 5 && argc != 6) {
		fputs("rt_neighbour PRIO RUN_US PERIOD_US SECONDS [CPU]\n",
		      stderr);
		return 2;
	}
	if (argc == 6) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[5]), &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "rt_neighbour: CPU %s: %s\n", argv[5],
				strerror(errno));
			return 1;
		}
	}
	sp.sched_priority = atoi(argv[1]);
	run = strtoull(argv[2], NULL, 10) * NSEC_PER_USEC;
	period = strtoull(argv[3], NULL, 10) * NSEC_PER_USEC;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rt_neighbour: SCHED_FIFO %d: %s\n",
			sp.sched_priority, strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	next = now_ns();
	end = next + strtoull(argv[4], NULL, 10) * NSEC_PER_SEC;
	while (next < end) {
		while (now_ns() < next + run && now_ns() < end)
			;
		next += period;
		ts.tv_sec = next / NSEC_PER_SEC;
		ts.tv_nsec = next % NSEC_PER_SEC;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return 0;
}
