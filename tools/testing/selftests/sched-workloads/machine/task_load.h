/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which tasks took the CPUs during a stretch of time, from /proc, where
 * no trace records it: what kept the canary from measuring within its
 * bound is named so ("rt_neighbour (pid 4242, rt 50) 20.1%", as the
 * trace's analysis names the neighbours of a repetition).
 *
 * A snapshot reads every thread's CPU time (utime + stime of
 * /proc/<pid>/task/<tid>/stat, in clock ticks), its policy, priority and
 * whether it is a kernel thread. Two snapshots give each thread's share
 * of the CPUs between them: its CPU time over the wall time times the
 * CPUs online. A tick is 10 ms: a stretch of a second or more is needed
 * for a share to mean something.
 */
#ifndef SW_TASK_LOAD_H
#define SW_TASK_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct task_tick {
	pid_t tgid, tid;
	unsigned long long start;	/* starttime: a tid reused is another */
	unsigned long long ticks;	/* utime + stime */
	char comm[32];
	char policy[32];		/* "fair nice 0", "rt 50", "deadline" */
	int kthread;
};

struct task_load {
	struct task_tick *t;
	size_t n, cap;
	uint64_t at_ns;			/* CLOCK_MONOTONIC */
};

/* Every thread now; -1 when /proc cannot be read or out of memory. */
int task_load_read(struct task_load *s);
void task_load_free(struct task_load *s);
/*
 * The thread of another process that took most of the CPUs between @a
 * and @b, as "comm (pid N, policy) 12.3%", into @buf; "not one task
 * above 1%" when none took that much. Returns its share.
 */
double task_load_heaviest(const struct task_load *a, const struct task_load *b,
			  char *buf, size_t len);

#endif /* SW_TASK_LOAD_H */
