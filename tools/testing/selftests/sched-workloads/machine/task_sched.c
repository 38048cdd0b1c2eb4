// SPDX-License-Identifier: GPL-2.0
/*
 * A task's affinity and policy (machine/task_sched.h).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/cpu_list.h"
#include "lib/util.h"
#include "machine/task_sched.h"

cpu_set_t *task_affinity(pid_t tid, size_t *setsize)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t *set;

	if (n < 1)
		n = 1;
	for (;;) {
		set = CPU_ALLOC(n);
		if (!set)
			return NULL;
		*setsize = CPU_ALLOC_SIZE(n);
		if (!sched_getaffinity(tid, *setsize, set))
			return set;
		CPU_FREE(set);
		/* EINVAL: the kernel's mask is longer than ours. */
		if (errno != EINVAL || n > (1L << 22))
			return NULL;
		n *= 2;
	}
}

char *task_affinity_list(pid_t tid)
{
	cpu_set_t *set;
	size_t size;
	char *list;

	set = task_affinity(tid, &size);
	if (!set)
		return NULL;
	list = cpu_list_format(set, size, size * 8);
	CPU_FREE(set);
	return list;
}

int task_policy_name(pid_t tid, char *buf, size_t size)
{
	static const char *const names[] = {
		[SCHED_OTHER] = "SCHED_OTHER", [SCHED_FIFO] = "SCHED_FIFO",
		[SCHED_RR] = "SCHED_RR", [SCHED_BATCH] = "SCHED_BATCH",
		[SCHED_IDLE] = "SCHED_IDLE", [SCHED_DEADLINE] = "SCHED_DEADLINE",
	};
	int policy = sched_getscheduler(tid), reset, len;
	struct sched_param sp;

	if (policy < 0)
		return -1;
	reset = policy & SCHED_RESET_ON_FORK;
	policy &= ~SCHED_RESET_ON_FORK;
	if ((size_t)policy < ARRAY_SIZE(names) && names[policy])
		len = snprintf(buf, size, "%s", names[policy]);
	else
		len = snprintf(buf, size, "policy%d", policy);
	if ((policy == SCHED_FIFO || policy == SCHED_RR) &&
	    !sched_getparam(tid, &sp) && (size_t)len < size)
		len += snprintf(buf + len, size - len, ":%d",
				sp.sched_priority);
	if (reset && (size_t)len < size)
		snprintf(buf + len, size - len, "|SCHED_RESET_ON_FORK");
	return 0;
}
